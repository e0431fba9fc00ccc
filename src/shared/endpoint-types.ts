import type { HealthBanner } from '../health/reporting.js';
import type { HealthEffect, HealthState } from '../health/types.js';
import type { PolicyOverrides } from '../policy/schema.js';
import type { PresetName } from '../policy/types.js';
import type { FlowOptions, FlowState, RateLimit } from '../flow/limiter.js';
import type { SnapshotStamp } from './snapshot-memo.js';
import type {
  VerificationMode,
  VerificationState,
  VerificationStatus,
  VerificationView,
} from './verification.js';

export interface OperationalWebhook {
  url: string;
  secrets: string[];
}

/** What a tenant configures on an endpoint (SPEC §1 "Endpoint"). */
export interface EndpointConfig {
  url: string;
  description?: string;
  /** Event types delivered; empty or absent = every type. `order.*` matches a prefix. */
  eventTypes?: string[];
  preset: PresetName;
  policy?: PolicyOverrides;
  /** The creator's email: where notices go when the tenant has no billing address. */
  createdBy?: string;
  operationalWebhook?: OperationalWebhook;
  /** R-RH-TRANSFORM: a JSONata expression mapping the event to the request sent. */
  transformation?: string;
  /** Issue 14.15: `challenge` sends only once the receiver proved it controls the URL. Absent = `none`. */
  verification?: VerificationMode;
  /** Issue 17: at most `perSecond` sends a second (a bucket of `burst` tokens, default 1). */
  rateLimit?: RateLimit;
  /** Issue 17: at most this many attempts in flight at once, across all workers. */
  maxInFlight?: number;
  /** Issue 17: attempted in the order the events were accepted. */
  ordering?: 'fifo';
}

export interface SigningSecret {
  secret: string;
  createdAt: number;
  /** A rotated-out secret keeps signing until then, so receivers can switch over. */
  expiresAt?: number;
}

export interface EndpointInput {
  endpointId: string;
  tenantId: string;
  config: EndpointConfig;
  secrets: SigningSecret[];
  createdAt: number;
  /** Set by continueAsNew: everything the previous run knew. */
  carried?: {
    health: HealthState;
    deleted: boolean;
    lastTest?: TestResult;
    verification?: VerificationState;
    /** Issue 17: the limiter's tokens, leases and waiters. */
    flow?: FlowState;
    /**
     * Effects the health rules emitted while the run waited to roll over (a pause, a disable
     * arriving while a notice was still retrying): the next run carries them out.
     */
    effects?: CarriedEffect[];
  };
}

/**
 * An effect handed to the next run. A notice stopped while retrying keeps when its retries
 * began, so the next run retries it only for what is left of their time.
 */
export type CarriedEffect = HealthEffect & { retryingSince?: number };

export interface TestResult {
  ok: boolean;
  at: number;
  httpStatus?: number;
  code?: string;
  latencyMs: number;
}

/** The endpoint as tenants and operators see it: no secrets. */
export interface EndpointView {
  endpointId: string;
  tenantId: string;
  config: EndpointConfig;
  health: HealthState;
  banner?: HealthBanner;
  lastTest?: TestResult;
  secretCount: number;
  createdAt: number;
  deleted: boolean;
  /** Issue 14.15: absent only in views from endpoint workflows older than verification. */
  verification?: VerificationView;
  /** Issue 16: the view query's revision (see SnapshotStamp); never shown to tenants. */
  stamp?: SnapshotStamp;
}

/** What a delivery needs to send, read through a short-lived cache. */
export interface EndpointSnapshot {
  endpointId: string;
  tenantId: string;
  preset: PresetName;
  url: string;
  /** Secrets still signing, newest first (two during a rotation: R-SIGN). */
  secrets: string[];
  health: HealthState;
  deleted: boolean;
  /** R-RH-TRANSFORM: applied at send time, so an edit reaches deliveries already waiting. */
  transformation?: string;
  /** Issue 14.15: what the send path decides on (verificationGate); absent = not required. */
  verification?: VerificationStatus;
  /** Issue 17: present only when the endpoint has flow options; absent = the gate costs nothing. */
  flow?: FlowOptions;
  /** Issue 16: which revision this is, so a describe can tell it is still current; absent in older workers' answers. */
  stamp?: SnapshotStamp;
}

export type FlowOptionName = 'rateLimit' | 'maxInFlight' | 'ordering';

export interface EndpointPatch {
  url?: string;
  description?: string;
  eventTypes?: string[];
  policy?: PolicyOverrides;
  operationalWebhook?: OperationalWebhook | null;
  /** null removes it. */
  transformation?: string | null;
  verification?: VerificationMode;
  /** Issue 17: flow options (the API's null becomes a name in `unset`). */
  rateLimit?: RateLimit;
  maxInFlight?: number;
  ordering?: 'fifo';
  unset?: FlowOptionName[];
}

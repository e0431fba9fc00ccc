import type { FlowState, RateLimit } from '../flow/limiter.js';
import type { SnapshotStamp } from './snapshot-memo.js';

export interface ApiKeyRecord {
  keyId: string;
  /** sha256 of the secret part, hex; the key itself is shown once and never stored. */
  hash: string;
  createdAt: number;
  revokedAt?: number;
}

export interface TenantInput {
  tenantId: string;
  name: string;
  billingEmail?: string;
  createdAt: number;
  carried?: TenantCarried;
}

export interface TenantCarried {
  subscriptionActive: boolean;
  apiKeys: ApiKeyRecord[];
  billingEmail?: string;
  name: string;
  replayDay?: { day: number; used: number };
  replayMinute?: { minute: number; used: number };
  /** Issue 17: the operator's limit on all of the tenant's sends, and its schedule. */
  rateLimit?: RateLimit;
  flow?: FlowState;
}

export interface TenantView {
  tenantId: string;
  name: string;
  billingEmail?: string;
  subscriptionActive: boolean;
  createdAt: number;
  apiKeys: Array<Omit<ApiKeyRecord, 'hash'>>;
  /** Issue 17: set by the operator (PUT /v1/admin/tenants/{id}/rate-limit); absent = none. */
  rateLimit?: RateLimit;
  /** Issue 16: the view query's revision (see SnapshotStamp); never shown. */
  stamp?: SnapshotStamp;
}

/** The tenant's active keys, as the API authenticates against them. */
export interface TenantKeys {
  keys: Array<Pick<ApiKeyRecord, 'keyId' | 'hash'>>;
  /** Issue 16: the tenant view's revision; the keys change only with the view. */
  stamp?: SnapshotStamp;
}

export type ReplayKind = 'window' | 'request';

export type ReplayAdmission =
  | { allowed: true }
  | { allowed: false; code: 'WebhookReplayQuotaExceeded' | 'replay_rate_limited'; retryAfterSeconds: number };

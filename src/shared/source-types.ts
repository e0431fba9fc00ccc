// Inbound sources (R-RH-INBOUND): what a tenant configures, and what the API and the
// forwards read. Types only; the source workflow holds the values.
import type { PolicyOverrides } from '../policy/schema.js';

export type HmacAlgorithm = 'sha1' | 'sha256' | 'sha512';
export type SignatureEncoding = 'hex' | 'base64' | 'base64url';

/** How a source checks that a request comes from its sender. */
export type VerificationScheme =
  | { kind: 'none' }
  | {
      /** https://www.standardwebhooks.com/: `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
      kind: 'standard_webhooks';
      /** `whsec_<base64>` secrets the sender signs with; two during a rotation. */
      secrets: string[];
      /** How far `webhook-timestamp` may be from now, either way (default 300 s). */
      toleranceSeconds?: number;
    }
  | {
      /** HMAC of the raw body in one header, e.g. GitHub's `X-Hub-Signature-256: sha256=<hex>`. */
      kind: 'hmac';
      header: string;
      algorithm: HmacAlgorithm;
      encoding: SignatureEncoding;
      /** Text before the signature in the header value (e.g. `sha256=`); stripped before comparing. */
      prefix?: string;
      /** Shared secrets, used as their UTF-8 bytes; two during a rotation. */
      secrets: string[];
    };

/** Where a source forwards what it receives; each has its own R-RH-CUSTOM overrides. */
export interface Destination {
  destinationId: string;
  url: string;
  description?: string;
  /** R-RH-CUSTOM: maxAttempts, retryDelays, timeoutSeconds, retryableStatuses. */
  policy?: PolicyOverrides;
  /** R-RH-TRANSFORM: applied to the forwarded body in the send path. */
  transformation?: string;
  createdAt: number;
}

export interface SourceConfig {
  name?: string;
  description?: string;
  verification: VerificationScheme;
  /** Largest body accepted; a bigger one is answered 413. */
  maxBodyBytes: number;
}

export interface SourceInput {
  /**
   * The public id: the workflow id, the `HeraldEventType` of its forwards and the id tenant
   * routes address it by. Issue 13.7: derived from the ingest id (`publicSourceId`), never
   * the ingest id itself, for sources created since; a legacy source's is its ingest id.
   */
  sourceId: string;
  /**
   * The ingest id (`/in/{ingestId}`): the credential of a `verification: none` source. Kept
   * only in encrypted payloads, never in an id or a search attribute. Absent on a legacy
   * source, whose ingest id is its `sourceId`.
   */
  ingestId?: string;
  tenantId: string;
  config: SourceConfig;
  destinations: Destination[];
  createdAt: number;
  /** Set by continueAsNew. */
  carried?: { deleted: boolean };
}

/** The verification as tenants see it: never the secrets. */
export type VerificationView =
  | { kind: 'none' }
  | { kind: 'standard_webhooks'; toleranceSeconds?: number; secretCount: number }
  | {
      kind: 'hmac';
      header: string;
      algorithm: HmacAlgorithm;
      encoding: SignatureEncoding;
      prefix?: string;
      secretCount: number;
    };

export interface SourceView {
  sourceId: string;
  /** Where the ingest URL points; the API shows it as `ingestUrl`, to the tenant only. */
  ingestId: string;
  tenantId: string;
  name?: string;
  description?: string;
  verification: VerificationView;
  maxBodyBytes: number;
  destinations: Destination[];
  createdAt: number;
  deleted: boolean;
}

/** What the ingest route needs, secrets included; read through a ~1 s cache. */
export interface SourceSnapshot {
  sourceId: string;
  /** The ingest id it answers to (its `sourceId` for a legacy source). */
  ingestId: string;
  tenantId: string;
  config: SourceConfig;
  destinations: Destination[];
  deleted: boolean;
}

export interface SourcePatch {
  name?: string;
  description?: string;
  verification?: VerificationScheme;
  maxBodyBytes?: number;
}

export interface DestinationPatch {
  url?: string;
  description?: string;
  policy?: PolicyOverrides | null;
  transformation?: string | null;
}

/**
 * What a forward carries besides the body (kept in `DeliveryTarget.forward`): the original
 * request's headers in order and as received, and how the body is stored.
 */
export interface ForwardRequest {
  /** The source's public id (never its ingest id). */
  sourceId: string;
  destinationId: string;
  /** One id per received request, shared by its forwards to every destination. */
  requestId: string;
  receivedAt: string;
  /** `[name, value]` as received, hop-by-hop headers included (dropped at send time). */
  headers: Array<[string, string]>;
  /** `utf8`: the body is the text itself; `base64`: not valid UTF-8, stored as base64. */
  bodyEncoding: 'utf8' | 'base64';
  /** A dead-letter retry: the forward this one was made from. */
  retryOf?: string;
}

import { randomBytes } from 'node:crypto';
import { DESTINATION_ID, newDestinationId, newSourceId } from '../inbound/forwards.js';
import { publicSourceId } from '../inbound/source-ids.js';
import type { PolicyOverrides } from '../policy/policy.js';
import { MAX_DESTINATIONS } from '../shared/source-messages.js';
import type {
  Destination,
  DestinationPatch,
  SourcePatch,
  SourceView,
  VerificationScheme,
} from '../shared/source-types.js';
import { generateSecret } from '../signing/standard-webhooks.js';
import type { SourceChange, SourceStore } from '../store/sources.js';
import { refuse } from './refusal.js';
import { startWithinCap } from './tenant-cap.js';

/** Largest body an ingest URL accepts (a source may set less): well under Temporal's 2 MB payload limit. */
export const MAX_INGEST_BODY_BYTES = 512 * 1024;

/** How the tenant asks a source to verify senders; secrets left out are made by Herald. */
export type VerificationRequest =
  | { kind: 'none' }
  | { kind: 'standard_webhooks'; secrets?: string[]; toleranceSeconds?: number }
  | {
      kind: 'hmac';
      header: string;
      algorithm: Extract<VerificationScheme, { kind: 'hmac' }>['algorithm'];
      encoding: Extract<VerificationScheme, { kind: 'hmac' }>['encoding'];
      prefix?: string;
      secrets?: string[];
    };

export interface DestinationRequest {
  url: string;
  description?: string;
  policy?: PolicyOverrides;
  transformation?: string;
}

export interface SourceRequest {
  name?: string;
  description?: string;
  verification?: VerificationRequest;
  maxBodyBytes?: number;
  destinations?: DestinationRequest[];
}

/** A source with the verification secret Herald made for it, shown this once. */
export interface MadeSource {
  source: SourceView;
  secret?: string;
}

/**
 * The stored scheme, with a fresh secret when the tenant gave none (returned once): a
 * Standard Webhooks `whsec_` secret, or 32 random bytes in hex for an HMAC header.
 */
export function verificationScheme(v: VerificationRequest | undefined): {
  scheme: VerificationScheme;
  secret?: string;
} {
  if (!v || v.kind === 'none') return { scheme: { kind: 'none' } };
  if (v.kind === 'standard_webhooks') {
    const secret = v.secrets ? undefined : generateSecret();
    return {
      scheme: { kind: v.kind, secrets: v.secrets ?? [secret!], toleranceSeconds: v.toleranceSeconds },
      secret,
    };
  }
  const secret = v.secrets ? undefined : randomBytes(32).toString('hex');
  return {
    scheme: {
      kind: 'hmac',
      header: v.header,
      algorithm: v.algorithm,
      encoding: v.encoding,
      prefix: v.prefix,
      secrets: v.secrets ?? [secret!],
    },
    secret,
  };
}

/** A new destination with its own unguessable id. Its URL is checked by the caller (R-URL). */
export const newDestination = (d: DestinationRequest, now: number): Destination => ({
  destinationId: newDestinationId(),
  url: d.url,
  description: d.description,
  policy: d.policy,
  transformation: d.transformation,
  createdAt: now,
});

/** How many sources a tenant may have, and how creates of one tenant are kept apart. */
export interface SourceLimits {
  /** HERALD_MAX_SOURCES_PER_TENANT. */
  maxSources: number;
  /** Runs a tenant's creates one after another, so "count, then start" holds under concurrency. */
  oneAtATime<T>(tenantId: string, task: () => Promise<T>): Promise<T>;
}

/** The tenant's source, or a refusal that does not say whether another tenant's exists. */
export async function ownedSource(store: SourceStore, tenantId: string, id: string): Promise<SourceView> {
  return (await store.ownedSource(tenantId, id)) ?? refuse('not_found', 'source_not_found', 'No such source');
}

/** The tenant's live sources, newest first. */
export async function listSources(store: SourceStore, tenantId: string): Promise<SourceView[]> {
  return (await store.sources(tenantId)).sort((a, b) => b.createdAt - a.createdAt);
}

/**
 * R-RH-INBOUND: a new source. Issue 13.7: the ingest id is the credential; the public id
 * (workflow id, forwards' source id) is derived from it, so Temporal only ever sees its hash.
 */
export async function createSource(
  store: SourceStore,
  tenantId: string,
  req: SourceRequest,
  limits: SourceLimits,
  now: number = Date.now(),
): Promise<MadeSource> {
  const { scheme, secret } = verificationScheme(req.verification);
  const ingestId = newSourceId();
  const sourceId = publicSourceId(ingestId);
  // As endpoints (issue 13.6): every source is a workflow with its own ingest allowance, so
  // a tenant's count is capped; one create per tenant at a time, so the count holds.
  const cap = { oneAtATime: limits.oneAtATime, max: limits.maxSources, noun: 'source' };
  await startWithinCap(
    cap,
    tenantId,
    () => store.sourceCount(tenantId),
    () =>
      store.create({
        sourceId,
        ingestId,
        tenantId,
        config: {
          name: req.name,
          description: req.description,
          verification: scheme,
          maxBodyBytes: req.maxBodyBytes ?? MAX_INGEST_BODY_BYTES,
        },
        destinations: (req.destinations ?? []).map((d) => newDestination(d, now)),
        createdAt: now,
      }),
  );
  return { source: await ownedSource(store, tenantId, sourceId), ...(secret ? { secret } : {}) };
}

/** The caller's validation of a request (throws its own 400), run once the source is known to be the tenant's. */
export type Check = () => void;

/** Runs a change on the tenant's source; what its workflow refuses becomes a refusal. */
async function change(
  store: SourceStore,
  tenantId: string,
  id: string,
  c: SourceChange,
  check?: Check,
): Promise<SourceView> {
  await ownedSource(store, tenantId, id);
  if (
    (c.kind === 'updateDestination' || c.kind === 'removeDestination') &&
    !DESTINATION_ID.test(c.destinationId)
  )
    refuse('not_found', 'destination_not_found', 'No such destination');
  // The request's own checks (R-URL, the transformation) answer only once the source is the tenant's.
  check?.();
  const r = await store.change(id, c);
  if (r.ok) return r.view;
  if (r.reason === 'destination_not_found')
    refuse('not_found', 'destination_not_found', 'No such destination');
  if (r.reason === 'source_deleted') refuse('not_found', 'source_not_found', 'No such source');
  return refuse(
    'conflict',
    'too_many_destinations',
    `A source forwards to at most ${MAX_DESTINATIONS} destinations`,
  );
}

/** Name, description, body limit or verification; a new scheme without secrets gets one, shown once. */
export async function patchSource(
  store: SourceStore,
  tenantId: string,
  id: string,
  patch: Omit<SourcePatch, 'verification'> & { verification?: VerificationRequest },
): Promise<MadeSource> {
  const made = patch.verification ? verificationScheme(patch.verification) : undefined;
  const source = await change(store, tenantId, id, {
    kind: 'patch',
    patch: {
      name: patch.name,
      description: patch.description,
      maxBodyBytes: patch.maxBodyBytes,
      verification: made?.scheme,
    },
  });
  return { source, ...(made?.secret ? { secret: made.secret } : {}) };
}

/** Its ingest URL answers 404 from now on; forwards already accepted go on. */
export const deleteSource = (store: SourceStore, tenantId: string, id: string) =>
  change(store, tenantId, id, { kind: 'delete' });

export async function addDestination(
  store: SourceStore,
  tenantId: string,
  id: string,
  req: DestinationRequest,
  check?: Check,
  now: number = Date.now(),
): Promise<{ destination: Destination; source: SourceView }> {
  const destination = newDestination(req, now);
  const source = await change(store, tenantId, id, { kind: 'addDestination', destination }, check);
  return { destination, source };
}

/** New forwards only: one already accepted keeps the destination it was made with. */
export const updateDestination = (
  store: SourceStore,
  tenantId: string,
  id: string,
  destinationId: string,
  patch: DestinationPatch,
  check?: Check,
) => change(store, tenantId, id, { kind: 'updateDestination', destinationId, patch }, check);

export const removeDestination = (store: SourceStore, tenantId: string, id: string, destinationId: string) =>
  change(store, tenantId, id, { kind: 'removeDestination', destinationId });

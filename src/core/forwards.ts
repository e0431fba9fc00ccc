import type { PolicyResolver } from '../deliveries/policy-resolver.js';
import { forwardInput, retryForwardId } from '../inbound/forwards.js';
import { boundedMap, tryEach } from '../shared/bounded-map.js';
import { attemptCount, lastError } from '../shared/delivery-view.js';
import type { DeliveryStatus } from '../shared/delivery-types.js';
import type { DeliveryRef } from '../store/deliveries.js';
import type { ForwardStore } from '../store/forwards.js';
import { Refusal, refuse } from './refusal.js';

/** "Undelivered forwards" (Railhook's forward dead-letter list): forwards that gave up. */
export const UNDELIVERED: readonly DeliveryStatus[] = ['exhausted', 'failed'];
/** Most undelivered forwards one bulk retry takes on. */
export const BULK_RETRY_LIMIT = 1000;

export interface RetriedForward {
  id: string;
  retryOf: string;
  destinationId: string;
  status: 'pending';
}

export interface UndeliveredForward {
  ref: DeliveryRef;
  status: DeliveryStatus;
  attemptCount: number;
  lastError: string | null;
  /** The forward a retry already made from this one; retrying again is refused. */
  retriedAs: string | null;
}

/** The tenant's forward, or a refusal that does not say whether another tenant's exists. */
export async function ownedForward(store: ForwardStore, tenantId: string, id: string): Promise<DeliveryRef> {
  return (
    (await store.ownedForward(tenantId, id)) ?? refuse('not_found', 'forward_not_found', 'No such forward')
  );
}

/**
 * R-RH-INBOUND: retry of an undelivered forward: a new forward (new id, attempt 1, a fresh
 * 24 h lifetime) of the same request to the destination as configured now. The new id is
 * derived from the old one, so a second retry of the same forward is refused, never sent twice.
 */
export async function retryForward(
  store: ForwardStore,
  resolvePolicy: PolicyResolver,
  tenantId: string,
  id: string,
  now: Date = new Date(),
): Promise<RetriedForward> {
  const ref = await ownedForward(store, tenantId, id);
  const state = await store.state(id);
  if (!state || !UNDELIVERED.includes(state.status))
    refuse(
      'conflict',
      'not_a_dead_letter',
      'This forward is not undelivered',
      `It is ${state?.status ?? 'unknown'}.`,
    );
  const old = await store.input(id);
  const fwd = old?.target?.forward;
  if (!old || !fwd) refuse('conflict', 'not_retryable', 'This forward can no longer be retried');
  // The same destination as it is configured now: Railhook's advice is to fix the URL
  // or credentials, then retry.
  const destination = await store.destination(tenantId, fwd.sourceId, fwd.destinationId);
  if (!destination)
    refuse('conflict', 'destination_gone', 'The destination of this forward no longer exists');
  const newId = retryForwardId(id);
  const input = forwardInput({
    forwardId: newId,
    tenantId,
    destination,
    policy: resolvePolicy('railhook', destination.policy, 'inbound'),
    request: {
      sourceId: fwd.sourceId,
      requestId: fwd.requestId,
      receivedAt: fwd.receivedAt,
      headers: fwd.headers,
      bodyEncoding: fwd.bodyEncoding,
      retryOf: id,
    },
    body: old.event.body,
    // A new forward: attempt 1 and a fresh 24 h lifetime (R-RH-LIFETIME).
    createdAt: now.toISOString(),
  });
  if (!(await store.start(input)))
    refuse('conflict', 'already_retried', 'This forward was already retried', `The retry is ${newId}.`, {
      forwardId: newId,
    });
  return { id: newId, retryOf: ref.id, destinationId: destination.destinationId, status: 'pending' };
}

/** R-RH-INBOUND bulk retry: each named forward is tried; each refusal comes back with its code. */
export async function retryForwards(
  store: ForwardStore,
  resolvePolicy: PolicyResolver,
  tenantId: string,
  ids: readonly string[],
  now: Date = new Date(),
): Promise<{ retried: Array<{ id: string; retryOf: string }>; failed: Array<{ id: string; code: string }> }> {
  const { done, failed } = await tryEach(
    [...new Set(ids)],
    8,
    async (id) => {
      const r = await retryForward(store, resolvePolicy, tenantId, id, now);
      return { id: r.id, retryOf: r.retryOf };
    },
    {
      codeOf: (e) => (e instanceof Refusal ? e.code : undefined),
      idOf: (id) => id,
      what: 'forward retry',
    },
  );
  return { retried: done, failed };
}

/**
 * Undelivered forwards, newest first, with their attempt count, last error and the retry
 * already made from each. A forward whose state moved on since the listing is left out.
 */
export async function undeliveredForwards(
  store: ForwardStore,
  tenantId: string,
  filter: { sourceId?: string },
  limit: number,
): Promise<UndeliveredForward[]> {
  const refs = await store.newest(tenantId, { ...filter, statuses: UNDELIVERED }, limit);
  const rows = await boundedMap(refs, 16, async (ref): Promise<UndeliveredForward | undefined> => {
    const retry = retryForwardId(ref.id);
    const [s, retried] = await Promise.all([store.state(ref.id), store.exists(retry)]);
    if (!s || !UNDELIVERED.includes(s.status)) return undefined;
    return {
      ref,
      status: s.status,
      attemptCount: attemptCount(s),
      lastError: lastError(s) ?? null,
      retriedAs: retried ? retry : null,
    };
  });
  return rows.filter((r) => r !== undefined);
}

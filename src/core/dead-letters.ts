import { presetsOffering, recoveryOf } from '../policy/policy.js';
import { tryEach } from '../shared/bounded-map.js';
import { presentState, type DeliveryView } from '../shared/delivery-view.js';
import type { DeadLetterStore } from '../store/dead-letters.js';
import { reopenable } from '../store/deliveries.js';
import { Refusal, refuse } from './refusal.js';

/** Most dead letters one bulk retry takes on. */
export const BULK_RETRY_LIMIT = 1000;

/**
 * Issue 14.6: a preset without a dead-letter list (Bird) answers every dead-letter request
 * with this, pointing at what it offers instead: the endpoint's attempts and a window replay.
 */
export function deadLettersNotOffered(endpointId: string, preset: string | undefined): never {
  refuse(
    'conflict',
    'dead_letters_not_offered',
    'This endpoint has no dead-letter list',
    `Its preset (${preset ?? 'unknown'}) keeps no separate list of failed deliveries. Read its attempts with ` +
      `GET /v1/endpoints/${endpointId}/attempts and resend the failures with POST /v1/replay/window ` +
      `{"endpointId":"${endpointId}"} (since and until optional).`,
    {
      endpointId,
      ...(preset ? { preset } : {}),
      replay: { method: 'POST', href: '/v1/replay/window', body: { endpointId } },
      attempts: { method: 'GET', href: `/v1/endpoints/${endpointId}/attempts` },
    },
  );
}

/**
 * R-RH-DLQ: retry a dead letter. The same delivery goes back to `pending` with 3 more
 * attempts, keeping its id, attempt log and Idempotency-Key; the first one is immediate.
 * Whether a delivery can be retried is its preset's recovery offer, never its name.
 */
export async function retryDeadLetter(
  store: DeadLetterStore,
  tenantId: string,
  id: string,
  nowMs: number = Date.now(),
): Promise<DeliveryView> {
  const ref =
    (await store.ownedDelivery(tenantId, id)) ??
    refuse('not_found', 'delivery_not_found', 'No such delivery');
  const offer = recoveryOf(ref.preset);
  if (!offer.deadLetterList) deadLettersNotOffered(ref.endpointId, ref.preset);
  const closed = () =>
    refuse(
      'conflict',
      'not_retryable',
      'This delivery can no longer be retried',
      !offer.deadLetterRetry
        ? offer.deliveryReplay !== 'none'
          ? `This endpoint offers no dead-letter retry; replay it with POST /v1/replay/deliveries/${id}.`
          : 'This endpoint offers no manual retry; read the event back through the events API.'
        : 'Its retry window has closed.',
    );
  // Issue 16: a closed delivery reopens within its preset's window (policy/replay-window.ts).
  if (!offer.deadLetterRetry || !reopenable(ref, nowMs)) closed();
  const r = await store.retryDeadLetter(ref);
  if (r.ok) return presentState(ref, r.state);
  if (r.reason === 'not_a_dead_letter')
    refuse(
      'conflict',
      'not_a_dead_letter',
      'This delivery is not a dead letter',
      'Only an exhausted delivery can be retried.',
    );
  return closed();
}

/**
 * R-RH-DLQ bulk: the named dead letters, or every open one of presets that offer a retry
 * (at most BULK_RETRY_LIMIT). Each is tried; each refusal comes back with its code.
 */
export async function retryDeadLetters(
  store: DeadLetterStore,
  tenantId: string,
  which: { ids: readonly string[] } | { all: true },
  nowMs: number = Date.now(),
): Promise<{ retried: string[]; failed: Array<{ id: string; code: string }> }> {
  const ids =
    'ids' in which
      ? [...new Set(which.ids)]
      : await store.retryableDeadLetters(
          tenantId,
          presetsOffering((o) => o.deadLetterRetry),
          BULK_RETRY_LIMIT,
          nowMs,
        );
  const { done, failed } = await tryEach(
    ids,
    8,
    async (id) => (await retryDeadLetter(store, tenantId, id, nowMs), id),
    {
      codeOf: (e) => (e instanceof Refusal ? e.code : undefined),
      idOf: (id) => id,
      what: 'dead-letter retry',
    },
  );
  return { retried: done, failed };
}

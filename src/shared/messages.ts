// Signals, queries and updates of Herald's workflows, defined once so the API and the
// typed client can address a workflow without importing its code.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { DeliveryState } from './delivery-types.js';

export const deliveryStateQuery = defineQuery<DeliveryState>('deliveryState');

/** R-RH-DLQ: same delivery back to pending with 3 more attempts, the first at once. */
export const retryDeadLetterUpdate = defineUpdate<DeliveryState>('retryDeadLetter');

export type ReplayMode = 'round' | 'single';
/**
 * `round`: a new round numbered from 1 under the same schedule (R-DT-REPLAY);
 * `single`: one attempt, no schedule (R-BIRD-REPLAY). Rejected while pending or in flight.
 */
export const replayDeliveryUpdate = defineUpdate<DeliveryState, [{ mode: ReplayMode }]>('replayDelivery');

/** Cancel as dead (`endpoint_disabled`): a pending delivery is never sent afterwards. */
export const markDeadSignal = defineSignal<[{ code: string }]>('markDead');

/**
 * End a pending delivery from outside, as the endpoint's health decides: `dead` (Smengo
 * disable), `exhausted` (Dong Tien: to the dead letters) or `failed` (Bird pause).
 */
export const endDeliverySignal = defineSignal<[{ status: 'dead' | 'exhausted' | 'failed'; code: string }]>(
  'endDelivery',
);

/** Dong Tien drain: this held delivery may send now, one at a time in creation order. */
export const drainTurnSignal = defineSignal('drainTurn');

/** Ends a deferral early (subscription reactivated, endpoint resumed). */
export const wakeSignal = defineSignal('wake');

/** Reasons an update is refused; the API maps them to 409. */
export const DELIVERY_IN_PROGRESS = 'delivery_in_progress';
export const NOT_A_DEAD_LETTER = 'not_a_dead_letter';

/**
 * Issue 17 (R-RH-DEFER "ordered delivery waiting for the previous delivery"): the order
 * bookkeeping of an endpoint with `ordering: 'fifo'`, as plain data the endpoint workflow keeps
 * and carries across continue-as-new. Pure and deterministic: every function takes the time it
 * decides at (workflow time inside the endpoint workflow).
 *
 * - `queue`: the unfinished ordered deliveries in acceptance order, the order the endpoint
 *   workflow learnt of them. The publish path tells it (enqueue) before it starts them, so
 *   events published one after the other are in publish order; a delivery the endpoint has
 *   never heard of (a dead-letter retry or replay, a publish that died between the two steps)
 *   joins at the tail when it first asks.
 * - Only the head may send; every other ordered send is deferred (`waiting_for_previous`: no
 *   attempt spent, the schedule not advanced) until the ones before it finished their round.
 *   The head stays the head through its retries, its backoff and any hold.
 * - A round that ends (succeeded, exhausted, dead, failed) leaves the queue (finish) and the
 *   new head is woken.
 * - A head that is never heard from (its workflow terminated, or never started) would block
 *   the queue for ever: once it has been silent for STALE_HEAD_MS while later ones wait, the
 *   endpoint looks its workflow up (an activity, on its own timer: waiters do not poll); one
 *   that is not running is dropped. A head found running (a long backoff, a hold) is looked
 *   up again less and less often, at most every MAX_STALE_CHECK_MS.
 */

import { ORDER_DEFERRAL_CODE } from './limiter.js';

export { ORDER_DEFERRAL_CODE };

/** At most this many unfinished ordered deliveries are kept in order; later ones wait for room. */
export const MAX_ORDERED_QUEUE = 5_000;
/** The last this many finished ids, so a repeated publish does not put them back in the queue. */
export const DONE_KEPT = 500;
/** A waiter looks again after this if its wake is lost (the wake is what ends its wait). */
export const ORDER_RECHECK_MS = 300_000;
/** A head not heard from (asking or finishing) for this long is looked up while others wait. */
export const STALE_HEAD_MS = 30_000;
/** The longest silence between two lookups of a head found running each time. */
export const MAX_STALE_CHECK_MS = 3_600_000;

export interface OrderState {
  /** Unfinished ordered deliveries, oldest (the head, the only one that may send) first. */
  queue: string[];
  /** When the head was last heard from: it became the head, asked, or was found running. */
  headSeenAt?: number;
  /** Lookups that found the current head running: each doubles the silence before the next. */
  headChecks?: number;
  /** Recently finished ids (bounded), ignored by a repeated enqueue. */
  done: string[];
}

export type OrderVerdict = { ok: true } | { ok: false; code: string; retryInMs: number };

export function emptyOrder(): OrderState {
  return { queue: [], done: [] };
}

function setHead(s: OrderState, now: number) {
  delete s.headChecks;
  if (s.queue.length > 0) s.headSeenAt = now;
  else delete s.headSeenAt;
}

/**
 * When the endpoint looks up a silent head: only while someone waits behind it; STALE_HEAD_MS
 * after it was last heard from, doubled for every lookup that found it running.
 */
export function staleHeadAt(s: OrderState): number | undefined {
  if (s.queue.length < 2 || s.headSeenAt === undefined) return undefined;
  return s.headSeenAt + Math.min(MAX_STALE_CHECK_MS, STALE_HEAD_MS * 2 ** (s.headChecks ?? 0));
}

/**
 * The publish path hands over the deliveries it is about to start, in publish order. Ids
 * already queued or recently finished are left as they are (a repeated publish); past
 * MAX_ORDERED_QUEUE the rest are not queued now and join when they ask, when there is room.
 * Nobody is woken: they have not started yet (one that had asked would be queued already).
 */
export function enqueue(s: OrderState, ids: readonly string[], now: number): void {
  const wasEmpty = s.queue.length === 0;
  for (const id of ids) {
    if (s.queue.length >= MAX_ORDERED_QUEUE) break;
    if (s.queue.includes(id) || s.done.includes(id)) continue;
    s.queue.push(id);
  }
  if (wasEmpty && s.queue.length > 0) setHead(s, now);
}

/**
 * An ordered delivery asks to send. The head may; any other waits. One the endpoint never
 * heard of (or that finished a round before: a dead-letter retry or replay) joins at the tail.
 */
export function askTurn(s: OrderState, id: string, now: number): OrderVerdict {
  if (!s.queue.includes(id)) {
    if (s.queue.length >= MAX_ORDERED_QUEUE) return { ok: false, code: ORDER_DEFERRAL_CODE, retryInMs: ORDER_RECHECK_MS };
    s.done = s.done.filter((d) => d !== id);
    s.queue.push(id);
    if (s.queue.length === 1) setHead(s, now);
  }
  if (s.queue[0] === id) {
    s.headSeenAt = now;
    return { ok: true };
  }
  return { ok: false, code: ORDER_DEFERRAL_CODE, retryInMs: ORDER_RECHECK_MS };
}

/**
 * A delivery's round ended: it leaves the queue (wherever it stood: one ended while waiting,
 * by a disable or its lifetime, goes too). Returns the new head to wake, if the head changed.
 */
export function finish(s: OrderState, id: string, now: number): string[] {
  const i = s.queue.indexOf(id);
  s.done = [...s.done.filter((d) => d !== id), id].slice(-DONE_KEPT);
  if (i < 0) return [];
  s.queue.splice(i, 1);
  if (i !== 0) return [];
  setHead(s, now);
  return s.queue.length > 0 ? [s.queue[0]!] : [];
}

/** What the lookup of a silent head found: a running one is kept (seen now); any other is dropped. */
export function headChecked(s: OrderState, id: string, running: boolean, now: number): string[] {
  if (s.queue[0] !== id) return [];
  if (running) {
    s.headSeenAt = now;
    s.headChecks = (s.headChecks ?? 0) + 1;
    return [];
  }
  s.queue.shift();
  setHead(s, now);
  return s.queue.length > 0 ? [s.queue[0]!] : [];
}

/** Ordering was switched off: nobody waits for order any more; every waiter is woken. */
export function clearOrder(s: OrderState): string[] {
  const waiting = s.queue.slice(1);
  s.queue = [];
  delete s.headSeenAt;
  return waiting;
}

/**
 * Issue 17 (R-RH-DEFER): an endpoint's flow control, as plain data the endpoint workflow
 * keeps and carries across continue-as-new. Pure and deterministic: every function takes
 * the time it decides at (workflow time inside the endpoint workflow).
 *
 * - rate limit: a schedule (GCRA) with `burst` sends back to back, then 1/perSecond apart.
 *   A send over the limit is given its time once (a reservation): granted with it when it is
 *   near, deferred to just before it otherwise (it asks once, not every recheck).
 * - maxInFlight: at most that many leases out at once. A lease ends when the send reports
 *   back, or when it runs out (the worker died). A freed slot is promised to the oldest
 *   waiter, who is woken; newcomers queue behind waiters.
 */

import type { OrderState } from './order.js';

export interface RateLimit {
  perSecond: number;
  /** Tokens the bucket holds: sends allowed back to back after a quiet spell. Default 1. */
  burst?: number;
}

export interface FlowOptions {
  rateLimit?: RateLimit;
  maxInFlight?: number;
  ordering?: 'fifo';
}

export const RATE_DEFERRAL_CODE = 'rate_limited';
export const CONCURRENCY_DEFERRAL_CODE = 'concurrency_limited';
export const ORDER_DEFERRAL_CODE = 'waiting_for_previous';

/** How long a slot promised to a woken waiter is kept for it before the next one gets it. */
export const PROMISE_MS = 10_000;
/** A reservation nobody came back for is forgotten after this (its token stays spent). */
export const RESERVATION_FORGET_MS = 60_000;

export interface FlowState {
  /** Rate limit: `at` is the schedule's theoretical arrival time (GCRA); `tokens` unused. */
  bucket?: { tokens: number; at: number };
  /** deliveryId -> when its reserved token is free. */
  reservations: Record<string, number>;
  /** deliveryId -> when its slot comes back if nobody releases it (a lease, or a promise to a woken waiter). */
  leases: Record<string, number>;
  /** Deliveries refused a slot, oldest first. */
  waiters: string[];
  /** `ordering: 'fifo'`: the queue of unfinished ordered deliveries (flow/order.ts). */
  order?: OrderState;
}

/** `sendAt`: the workflow-clock time the granted send goes out (the activity waits for it). */
export type Verdict = { granted: true; sendAt?: number } | { granted: false; code: string; retryInMs: number };

export function emptyFlow(): FlowState {
  return { reservations: {}, leases: {}, waiters: [] };
}

/** Whether an endpoint configured with `o` needs the flow gate at all (absent = no cost). */
export function flowOptionsOf(o: FlowOptions): FlowOptions | undefined {
  const out: FlowOptions = {};
  if (o.rateLimit) out.rateLimit = o.rateLimit;
  if (o.maxInFlight !== undefined) out.maxInFlight = o.maxInFlight;
  if (o.ordering) out.ordering = o.ordering;
  return Object.keys(out).length > 0 ? out : undefined;
}

export function capacity(r: RateLimit): number {
  return Math.max(1, r.burst ?? 1);
}

/**
 * How far ahead a send may be granted: the send activity waits for its time itself, so
 * sends keep their spacing however long the delivery's own round trip takes. A send due
 * later is deferred, and comes back EARLY_MS before its time.
 */
export const HOLD_MS = 2_000;
export const EARLY_MS = 1_800;
/**
 * What a send asks with (`holdMs`, `earlyMs` on the request; the defaults above for a request
 * recorded without them). A send running as the activity may wait longer for its turn than an
 * inline first attempt (whose local activity has INLINE_GRACE_SECONDS beside the request): it
 * stays inside its lease's grace (LEASE_GRACE_SECONDS, 5 s) with room for the update. A
 * deferred send always comes back as the activity, so it comes back ACTIVITY_EARLY_MS before
 * its turn: a delivery whose timer or task runs up to that late under load still finds its
 * reserved turn ahead of it, instead of leaving the turn empty and taking one at the end.
 */
export const ACTIVITY_HOLD_MS = 3_500;
export const ACTIVITY_EARLY_MS = 3_300;

/**
 * A delivery whose turn was reserved at publish starts this long before it (a start delay):
 * its inline first attempt may wait HOLD_MS for its turn, so a first task dispatched up to
 * this late (over a second on a loaded machine: 17.2 beside other files) still finds its turn
 * ahead. The wait holds an inline slot, so about perSecond times this many of them wait at
 * once; past the endpoint's share of the slots a send goes as the activity (one more task).
 */
export const TURN_START_EARLY_MS = HOLD_MS - 100;
/**
 * A turn further out than this is not waited for by a start delay: a delayed run hears no
 * signal until it starts (an endpoint deleted or a delivery marked dead meanwhile would show
 * only then), so such a delivery starts at once and is deferred to its turn as it asks.
 */
export const TURN_START_DELAY_MAX_MS = 10 * 60_000;

/** The start delay of a delivery whose turn is `sendAt` (0: start now and ask). */
export function turnStartDelayMs(sendAt: number, now: number): number {
  const delay = sendAt - now - TURN_START_EARLY_MS;
  return delay > 0 && delay <= TURN_START_DELAY_MAX_MS ? Math.floor(delay) : 0;
}

export interface HoldAsked {
  /** How far ahead of now this send may be granted (it waits for its turn itself). */
  holdMs?: number;
  /** How long before its turn a deferred send is told to come back. */
  earlyMs?: number;
}

/**
 * The schedule paces with a margin: a step is PACE_MARGIN longer than 1/perSecond. A send
 * reaches the receiver some time after its turn (a late timer, a busy process, the request's
 * own way there); a window of one second holds more than perSecond + burst arrivals only when
 * one send is delayed by more than (perSecond + burst) steps - 1 s, which the margin raises
 * from one step to about 1.6 steps (320 ms at 5/s, 210 ms at 10/s).
 */
export const PACE_MARGIN = 0.05;
/**
 * A turn is never earlier than GRANT_LEAD_MS after the workflow time it is granted at: the
 * answer takes a while to reach the worker (workflow time is when the task started), and a
 * turn that had already passed on arrival would be missed, or sent late next to the next one.
 */
export const GRANT_LEAD_MS = 250;

/**
 * The lead a grant is given: the asker says how long its last answer took to come back
 * (`leadMs`), at least GRANT_LEAD_MS and at most half of what it may wait (`holdMs`).
 */
export function grantLead(leadMs?: number, holdMs = HOLD_MS): number {
  return Math.min(holdMs / 2, Math.max(GRANT_LEAD_MS, Math.ceil(leadMs ?? 0)));
}

/** The schedule's step: 1/perSecond with the margin (ms). */
export function pacedStep(r: RateLimit): number {
  return (1000 / r.perSecond) * (1 + PACE_MARGIN);
}

/**
 * A send that wakes (or hears its turn) later than this after its turn does not go: it asks
 * again (no attempt spent). Kept to a fraction of a step so that, with the margin, the rest
 * of the way to the receiver may still take more than a step without two sends sharing a
 * second over the bound.
 */
export function lateBoundMs(r: RateLimit): number {
  return Math.min(250, pacedStep(r) / 2);
}

/**
 * The rate limit as a schedule (GCRA, virtual scheduling): every send gets a time, at least
 * 1/perSecond after the previous one, `burst` of them allowed back to back after a quiet
 * spell, so no second holds more than perSecond + burst sends. The step is paced with a
 * margin (pacedStep) and no turn is sooner than GRANT_LEAD_MS. A send due within HOLD_MS is
 * granted with its time (`sendAt`, always given, so the sender can tell a missed turn); a
 * later one is deferred once, told to come back EARLY_MS before its time, and its time is
 * kept for it. One that comes back after its time (a busy worker) is scheduled afresh:
 * lateness never bunches sends.
 */
export function takeToken(
  s: FlowState,
  r: RateLimit,
  deliveryId: string,
  now: number,
  leadMs?: number,
  asked: HoldAsked = {},
): Verdict {
  const holdMs = asked.holdMs ?? HOLD_MS;
  const earlyMs = Math.min(asked.earlyMs ?? EARLY_MS, ACTIVITY_HOLD_MS);
  const step = pacedStep(r);
  const lead = grantLead(leadMs, holdMs);
  const tau = (capacity(r) - 1) * step;
  const reserved = s.reservations[deliveryId];
  let sendAt: number;
  if (reserved !== undefined && reserved >= now) sendAt = reserved;
  else {
    const tat = s.bucket?.at ?? now;
    sendAt = Math.max(now + lead, tat - tau);
    s.bucket = { tokens: 0, at: Math.max(tat, sendAt) + step };
  }
  if (sendAt - now <= holdMs) {
    delete s.reservations[deliveryId];
    return { granted: true, sendAt: Math.ceil(sendAt) };
  }
  s.reservations[deliveryId] = sendAt;
  return { granted: false, code: RATE_DEFERRAL_CODE, retryInMs: Math.max(1, Math.floor(sendAt - now - earlyMs)) };
}

/**
 * Issue 17: the publish path reserves a paced delivery's turn before it starts it, and starts
 * it to run just before (a start delay): a burst of publishes to a rate-limited endpoint then
 * costs no workflow task until each turn comes, instead of a task, a permit update and a timer
 * at once for every delivery. The turn is the schedule's next, kept as the delivery's
 * reservation (a repeat of the publish gets the same one while it lies ahead), so a send that
 * asks at its turn is granted it (takeToken). Never sooner than GRANT_LEAD_MS from `now`.
 */
export function reserveTurn(s: FlowState, r: RateLimit, deliveryId: string, now: number): number {
  const reserved = s.reservations[deliveryId];
  if (reserved !== undefined && reserved >= now) return Math.ceil(reserved);
  const step = pacedStep(r);
  const tau = (capacity(r) - 1) * step;
  const tat = s.bucket?.at ?? now;
  const sendAt = Math.max(now + GRANT_LEAD_MS, tat - tau);
  s.bucket = { tokens: 0, at: Math.max(tat, sendAt) + step };
  s.reservations[deliveryId] = sendAt;
  return Math.ceil(sendAt);
}

export function forgetOld(s: FlowState, now: number) {
  for (const [id, at] of Object.entries(s.reservations))
    if (at + RESERVATION_FORGET_MS < now) delete s.reservations[id];
}

/** Ends leases and promises that ran out; returns the waiters to wake for the freed slots. */
export function expireLeases(s: FlowState, o: FlowOptions, now: number): string[] {
  for (const [id, until] of Object.entries(s.leases)) if (until <= now) delete s.leases[id];
  return promiseFreeSlots(s, o, now);
}

function promiseFreeSlots(s: FlowState, o: FlowOptions, now: number): string[] {
  const wake: string[] = [];
  const max = o.maxInFlight;
  if (max === undefined) {
    // The limit was removed: nobody waits for a slot any more.
    wake.push(...s.waiters);
    s.waiters = [];
    return wake;
  }
  while (Object.keys(s.leases).length < max && s.waiters.length > 0) {
    const next = s.waiters.shift()!;
    s.leases[next] = now + PROMISE_MS;
    wake.push(next);
  }
  return wake;
}

/** The earliest time a lease or promise runs out: the endpoint looks again then. */
export function nextExpiry(s: FlowState): number | undefined {
  let min: number | undefined;
  for (const until of Object.values(s.leases)) if (min === undefined || until < min) min = until;
  return min;
}

/**
 * A delivery asks to send now. Concurrency is checked before the rate, so a waiter for a
 * slot spends no token. `leaseMs`: how long its slot is held if it never reports back.
 */
export function acquire(
  s: FlowState,
  o: FlowOptions,
  req: { deliveryId: string; leaseMs: number; holder?: string; leadMs?: number } & HoldAsked,
  now: number,
): { verdict: Verdict; wake: string[] } {
  forgetOld(s, now);
  const wake = expireLeases(s, o, now);
  const id = req.deliveryId;
  // A lease is held by one send (`holder`), so a second send of the same delivery (its first
  // one's worker stalled, and the attempt was repeated) waits for a slot of its own.
  const holder = leaseKey(id, req.holder);
  if (o.maxInFlight !== undefined && s.leases[id] === undefined && s.leases[holder] === undefined) {
    if (Object.keys(s.leases).length >= o.maxInFlight || s.waiters.some((w) => w !== id)) {
      if (!s.waiters.includes(id)) s.waiters.push(id);
      // The wake ends the wait; this bounds a lost one: the time the oldest slot must free.
      const retryInMs = Math.max(1, (nextExpiry(s) ?? now + PROMISE_MS) - now);
      return { verdict: { granted: false, code: CONCURRENCY_DEFERRAL_CODE, retryInMs }, wake };
    }
  }
  let sendAt: number | undefined;
  if (o.rateLimit) {
    const t = takeToken(s, o.rateLimit, id, now, req.leadMs, req);
    if (t.granted) sendAt = t.sendAt;
    else {
      // A promised slot is kept for it until its token is free.
      if (s.leases[id] !== undefined) s.leases[id] = Math.max(s.leases[id]!, now + t.retryInMs + PROMISE_MS);
      return { verdict: t, wake };
    }
  }
  if (o.maxInFlight !== undefined) {
    s.waiters = s.waiters.filter((w) => w !== id);
    // The slot promised to the delivery becomes this send's lease.
    if (holder !== id) delete s.leases[id];
    s.leases[holder] = (sendAt ?? now) + req.leaseMs;
  }
  return { verdict: sendAt !== undefined ? { granted: true, sendAt } : { granted: true }, wake };
}

/** The key of a send's lease: a promise to a woken waiter is keyed by the delivery alone. */
export function leaseKey(deliveryId: string, holder?: string): string {
  return holder ? `${deliveryId}#${holder}` : deliveryId;
}

/** The send of `deliveryId` (`holder`) ended: its slot goes to the oldest waiter, who is returned to wake. */
export function release(s: FlowState, o: FlowOptions, deliveryId: string, now: number, holder?: string): string[] {
  delete s.leases[leaseKey(deliveryId, holder)];
  return expireLeases(s, o, now);
}

import type { AttemptRecord, DeferStreak, DeliveryState, DeliveryStatus, SendResult } from '../shared/delivery-types.js';
import { attemptRowFields, type AttemptResult } from './attempt-result.js';
import { classifyError, classifyResponse, type AttemptOutcome } from './classify.js';
import { DLQ_RETRY_ATTEMPTS } from './replay-window.js';
import { parseRetryAfter, retryAfterApplies } from './retry-after.js';
import { nextWaitMs } from './schedule.js';
import type { DeliveryPolicy } from './types.js';

export type { AttemptResult } from './attempt-result.js';

/** The endpoint's health as an attempt saw it (health/'s HealthState, read through the send result). */
export type SeenHealth = NonNullable<SendResult['health']>;

/** What a delivery tells its endpoint about an outcome (the delivery members of health/'s HealthInput). */
export type OutcomeReport =
  | { kind: 'attempt_failed'; at: number; code: string; deliveryId: string; replay?: boolean }
  | { kind: 'attempt_succeeded'; at: number; deliveryId: string; replay?: boolean }
  | { kind: 'delivery_exhausted'; at: number; deliveryId: string }
  | { kind: 'gone'; at: number; deliveryId: string };

/**
 * The endpoint-health rules a round consults. They live in health/, above policy/, so the
 * workflow hands them in (health/reporting shouldReport, health/lifetime-end lifetimeEndCounts).
 */
export interface HealthRules {
  /** Whether the endpoint must hear of `report`, given the health the attempt saw. */
  shouldReport(seen: SeenHealth, report: OutcomeReport): boolean;
  /** Issue 14.5: whether a lifetime that ran out was the receiver's doing (it then counts). */
  lifetimeEndCounts(attempts: readonly AttemptRecord[], round: number): boolean;
}

/**
 * Issue 14.1: a run continues as new past this many history events (Temporal stops a
 * run at 51,200). Waits that poll (a pause rechecks every minute, a half-open breaker
 * every 10 s) grow the history with time, not work; a plain delivery never gets near.
 */
export const DELIVERY_ROLLOVER_EVENTS = 1_000;
/**
 * Issue 13.5: sends in a row that throw inside Herald (worker_error, lease lost) before
 * the attempt is spent. Each is repeated unspent first, so one worker crash costs nothing.
 */
export const WORKER_ERROR_LIMIT = 5;
/** A send that threw (not a lost lease) is repeated after this, so a bug cannot spin. */
export const WORKER_ERROR_PAUSE_MS = 5_000;
/**
 * Identical short rechecks in a row (a deferral asking for less than an hour: pause,
 * breaker, busy evaluators) kept as rows; later ones widen the last row (`repeats`).
 * Deferrals of an hour or more (an inactive subscription) stay one row each.
 */
export const DEFERRAL_ROWS_KEPT = 10;
const RECHECK_ROW_MAX_MS = 3_600_000;
/**
 * After an hour of identical deferrals the recheck backs off: a tenth of the time waited
 * so far, at most an hour (Smengo's own subscription recheck). What ends such waits is
 * signalled (resume and re-enable wake the deliveries, so does reactivation); the recheck
 * only covers a lost wake. A breaker's own times are kept exactly (its close wakes nobody).
 */
export const DEFERRAL_BACKOFF_AFTER_MS = 3_600_000;
export const DEFERRAL_BACKOFF_CAP_MS = 3_600_000;
/**
 * Issue 14.2: a delivery deferred this long without one attempt in between ends
 * `exhausted` (`deferral_limit`, a dead letter) instead of waiting for ever. 90 days is
 * the longest any preset keeps a body (Dong Tien); presets with a lifetime end sooner.
 */
export const DEFERRAL_LIMIT_MS = 90 * 86_400_000;

/** How a delivery is told from outside to end (endpoint disabled, deleted, paused too long). */
export interface Ending {
  status: 'dead' | 'exhausted' | 'failed';
  code: string;
}

/**
 * Everything the round's rules read and write. Plain data: the workflow carries it across
 * continue-as-new (as DeliveryCarried) and a reader sees `delivery`.
 */
export interface RoundState {
  /** What the delivery's query answers: status, attempt log, next attempt. */
  delivery: DeliveryState;
  /** When the lifetime (R-RH-LIFETIME) started: creation, or the latest manual retry or replay. */
  lifetimeStart: number;
  /** Attempts of this round before the latest dead-letter retry: the schedule restarts there (SPEC §5). */
  scheduleBase: number;
  /** A one-attempt replay (R-BIRD-REPLAY): its outcome never touches endpoint health. */
  singleReplay: boolean;
  ending?: Ending;
  /** The endpoint's health as the latest attempt saw it; reports are judged against it. */
  lastHealth?: SeenHealth;
  /** Sends in a row that threw inside Herald (issue 13.5). */
  workerErrors: number;
  /** The deferral streak under way (issue 14.2). */
  deferStreak?: DeferStreak;
  /** The attempt in flight, between `send` and its result. */
  inFlight?: { attempt: number; startedAt: number };
  /** What is left to decide once the reports of a `report` step are out. */
  after?: AfterReports;
}

type AfterReports =
  | { kind: 'finish'; status: DeliveryStatus; code?: string }
  | { kind: 'retry'; attempt: number; finishedAt: number; httpStatus?: number; code: string; retryAfter?: string };

/** What the delivery knows that no attempt changes. */
export interface RoundContext {
  policy: DeliveryPolicy;
  deliveryId: string;
  /** Bound to an endpoint workflow (not an ad-hoc target): only then is there health to report to. */
  bound: boolean;
  /**
   * R-JITTER's random source: Temporal's seeded Math.random in the workflow. Drawn only
   * when a retry is scheduled, so the sequence of draws is the one the workflow always made.
   */
  random: () => number;
  health: HealthRules;
}

/** What just happened, as the interpreter tells it. */
export type RoundInput =
  /** Ready for the next move (the round starts, or a wait or pause ended). */
  | {
      kind: 'ready';
      now: number;
      /** The current run's history: its length, and whether Temporal suggests continuing as new. */
      history: { events: number; suggested: boolean };
      /** The interpreter could not roll over (a run recorded before the rollover patch). */
      rollOverRefused?: boolean;
    }
  /** The attempt of the `send` step came back. */
  | { kind: 'sent'; now: number; result: AttemptResult }
  /** The reports of the `report` step are out. */
  | { kind: 'reported'; now: number };

/** What the interpreter does next. It publishes `delivery.status` to the index before each step. */
export type NextStep =
  /** Continue as new with the state carried (issue 14.1), once no handler is running. */
  | { kind: 'roll_over' }
  /** Send attempt `attempt`; `createdAt` is when the delivery counts as queued. */
  | { kind: 'send'; attempt: number; createdAt: string }
  /**
   * Tell the endpoint these outcomes, in order. `unlessPatched: 'lifetime_end'`: only runs
   * recorded before issue 14.5's patch send them (patched() false), so they replay as recorded.
   */
  | { kind: 'report'; reports: OutcomeReport[]; unlessPatched?: 'lifetime_end' }
  /** Wait `ms` whatever happens (a send that threw); 0 goes on at once. */
  | { kind: 'sleep'; ms: number }
  /**
   * Wait until `untilMs` (`ms` from now); an ending cuts it short. `recheck`: a wake asks
   * again at once (a deferral). `keep_time`: a scheduled retry keeps its time through a
   * wake, only a drain turn moves it (Dong Tien).
   */
  | { kind: 'wait'; ms: number; untilMs: number; onWake: 'recheck' | 'keep_time' }
  /** The round is over; `delivery.status` is final. */
  | { kind: 'end' };

export interface Decision {
  state: RoundState;
  step: NextStep;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The state of a new delivery's first round. */
export function firstRound(
  policy: DeliveryPolicy,
  ids: Pick<DeliveryState, 'deliveryId' | 'eventId' | 'endpointId'>,
  createdAtMs: number,
): RoundState {
  return {
    delivery: { ...ids, status: 'pending', round: 1, attemptsInRound: 0, attemptBudget: policy.maxAttempts, attempts: [] },
    lifetimeStart: createdAtMs,
    scheduleBase: 0,
    singleReplay: false,
    workerErrors: 0,
  };
}

/**
 * Issue 17 (R-RH-DEFER): the publish reserved this delivery's turn in its endpoint's rate
 * limit and started it to run just before it. The wait is the round's first row, a deferral
 * spending no attempt, so the log reads as it would had the delivery asked and been told.
 * The same state is what a read answers before the delayed run has started.
 */
export function deferredAtPublish(s: RoundState, turn: { reservedAt: number; sendAt: number }, code: string): RoundState {
  const st: RoundState = { ...s, deferStreak: { code, count: 1, since: turn.reservedAt } };
  const at = iso(turn.reservedAt);
  const row = { kind: 'deferral' as const, attempt: s.delivery.attemptsInRound + 1, startedAt: at, finishedAt: at, latencyMs: 0, code };
  return { ...st, delivery: { ...record(st, row), nextAttemptAt: iso(turn.sendAt) } };
}

/**
 * The delivery round (SPEC §2, §3) as a pure reducer: given the state and what just
 * happened, the new state and the one thing to do next. The workflow only carries the
 * steps out (timers, the activity, signals, the search attribute, continue-as-new).
 */
export function nextStep(ctx: RoundContext, s: RoundState, input: RoundInput): Decision {
  switch (input.kind) {
    case 'ready':
      return whenReady(ctx, s, input);
    case 'sent':
      return whenSent(ctx, s, input.result, input.now);
    case 'reported':
      return whenReported(ctx, s, input.now);
  }
}

function lifetimeDeadline(p: DeliveryPolicy, s: RoundState): number | undefined {
  return p.lifetimeSeconds == null ? undefined : s.lifetimeStart + p.lifetimeSeconds * 1000;
}

/** A final status: nothing scheduled any more, the code (if any) kept as the last one. */
function finish(s: RoundState, status: DeliveryStatus, code?: string): Decision {
  const { after: _a, inFlight: _f, ...rest } = s;
  const delivery: DeliveryState = { ...s.delivery, nextAttemptAt: undefined, status };
  if (code) delivery.lastCode = code;
  return { state: { ...rest, delivery }, step: { kind: 'end' } };
}

/** The reports the endpoint must hear of (shouldReport): never a plain success on a healthy endpoint. */
function worthReporting(ctx: RoundContext, seen: SeenHealth | undefined, hi: OutcomeReport): OutcomeReport[] {
  return ctx.bound && seen && ctx.health.shouldReport(seen, hi) ? [hi] : [];
}

function record(s: RoundState, row: Omit<AttemptRecord, 'round'>): DeliveryState {
  const full: AttemptRecord = { ...row, round: s.delivery.round, ...(s.singleReplay ? { replay: true } : {}) };
  return { ...s.delivery, attempts: [...s.delivery.attempts, full] };
}

/**
 * A deferral row; past DEFERRAL_ROWS_KEPT identical ones in a row the last row widens
 * instead, so a month of pause keeps the log (and what continueAsNew carries) small.
 */
function recordDeferral(s: RoundState, row: Omit<AttemptRecord, 'round'>, streak: DeferStreak, retryInMs: number): DeliveryState {
  const attempts = s.delivery.attempts;
  const last = attempts[attempts.length - 1];
  if (
    retryInMs < RECHECK_ROW_MAX_MS &&
    streak.count > DEFERRAL_ROWS_KEPT &&
    last?.kind === 'deferral' &&
    last.code === row.code &&
    last.attempt === row.attempt
  ) {
    const widened: AttemptRecord = { ...last, repeats: (last.repeats ?? 1) + 1, finishedAt: row.finishedAt };
    return { ...s.delivery, attempts: [...attempts.slice(0, -1), widened] };
  }
  return record(s, row);
}

function whenReady(ctx: RoundContext, s: RoundState, input: Extract<RoundInput, { kind: 'ready' }>): Decision {
  const { now } = input;
  // Set from outside (endpoint disabled, paused, suspended too long): end as told.
  if (s.ending !== undefined) return finish(s, s.ending.status, s.ending.code);
  // Issue 14.1: only between attempts, with nothing in flight.
  if (!input.rollOverRefused && (input.history.suggested || input.history.events > DELIVERY_ROLLOVER_EVENTS))
    return { state: s, step: { kind: 'roll_over' } };

  const deadline = lifetimeDeadline(ctx.policy, s);
  if (deadline !== undefined && now >= deadline) {
    // R-RH-LIFETIME: a dead letter (R-STATUS). Issue 14.5: only a lifetime the receiver ran
    // out counts toward disabling the endpoint; one spent held back (a pause past 96 h) does
    // not. Runs recorded before LIFETIME_END_PATCH reported every lifetime end.
    const hi: OutcomeReport = { kind: 'delivery_exhausted', at: now, deliveryId: ctx.deliveryId };
    const reports = s.singleReplay ? [] : worthReporting(ctx, s.lastHealth, hi);
    const after: AfterReports = { kind: 'finish', status: 'exhausted', code: 'lifetime_exceeded' };
    if (!ctx.health.lifetimeEndCounts(s.delivery.attempts, s.delivery.round))
      return { state: { ...s, after }, step: { kind: 'report', reports, unlessPatched: 'lifetime_end' } };
    if (reports.length > 0) return { state: { ...s, after }, step: { kind: 'report', reports } };
    return finish(s, after.status, after.code);
  }

  const attempt = s.delivery.attemptsInRound + 1;
  // R-STATUS: `processing` while the attempt is in flight (in the index too).
  const delivery: DeliveryState = { ...s.delivery, status: 'processing', nextAttemptAt: undefined };
  return {
    state: { ...s, delivery, inFlight: { attempt, startedAt: now } },
    // A replay or dead-letter retry counts as queued when it was asked for.
    step: { kind: 'send', attempt, createdAt: iso(s.lifetimeStart) },
  };
}

/** Pending again until `now + waitMs` (never in the past), waiting as `onWake` says. */
function waitFor(s: RoundState, delivery: DeliveryState, now: number, waitMs: number, onWake: 'recheck' | 'keep_time'): Decision {
  const untilMs = now + Math.max(0, waitMs);
  const { inFlight: _f, after: _a, ...rest } = s;
  return {
    state: { ...rest, delivery: { ...delivery, status: 'pending', nextAttemptAt: iso(untilMs) } },
    step: { kind: 'wait', ms: waitMs, untilMs, onWake },
  };
}

/** The lifetime caps every wait: a wait never outlasts the delivery (R-RH-LIFETIME). */
function capByLifetime(ctx: RoundContext, s: RoundState, waitMs: number, now: number): number {
  const deadline = lifetimeDeadline(ctx.policy, s);
  return deadline === undefined ? waitMs : Math.min(waitMs, deadline - now);
}

function whenSent(ctx: RoundContext, s0: RoundState, result: AttemptResult, now: number): Decision {
  if (!s0.inFlight) throw new Error('a send result with no attempt in flight');
  const { attempt } = s0.inFlight;
  const { inFlight: _f, ...s } = s0;

  if (result.kind === 'worker_error')
    return workerError(ctx, s, attempt, result.startedAt ?? s0.inFlight.startedAt, result.lease, now);

  // Attempt times come from the workflow clock so the log, the schedule and Temporal's
  // history agree (and stay meaningful on the time-skipping server); a kept outcome's send
  // happened one task timeout before the workflow heard of it, and its own times say when.
  const startedAt = result.sentEarlier?.startedAt ?? s0.inFlight.startedAt;
  const finishedAt = result.sentEarlier?.finishedAt ?? now;
  const times = { startedAt: iso(startedAt), finishedAt: iso(finishedAt), latencyMs: result.latencyMs };
  const base: RoundState = { ...s, workerErrors: 0, lastHealth: result.health ?? s.lastHealth };

  if (result.kind === 'dropped') {
    // The endpoint can no longer take it (disabled, deleted, unverified): no attempt spent.
    const delivery = record(base, { kind: 'refused', attempt, ...times, code: result.code });
    return finish({ ...base, delivery }, result.endAs, result.code);
  }
  if (result.kind === 'deferred') return deferred(ctx, base, attempt, times, result.code, result.retryInMs, startedAt, finishedAt);

  const outcome: AttemptOutcome =
    result.kind === 'delivered'
      ? { kind: 'success' }
      : result.kind === 'rejected'
        ? classifyResponse(ctx.policy, result.httpStatus)
        : classifyError(ctx.policy, result.code);
  const st: RoundState = { ...base, deferStreak: undefined };
  if (outcome.kind === 'failed') {
    // R-STATUS `failed`: never attempted; the row explains why, no attempt is spent.
    const delivery = record(st, { kind: 'refused', attempt, ...times, code: outcome.code });
    return finish({ ...st, delivery }, 'failed', outcome.code);
  }

  // The attempt is spent and logged (R-RESP).
  const logged: RoundState = {
    ...st,
    delivery: record(st, { kind: 'attempt', attempt, ...times, ...attemptRowFields(result) }),
  };
  logged.delivery.attemptsInRound = attempt;
  const at = finishedAt;
  const replay = s.singleReplay || undefined;
  const outcomeReport: OutcomeReport =
    outcome.kind === 'success'
      ? { kind: 'attempt_succeeded', at, deliveryId: ctx.deliveryId, replay }
      : outcome.kind === 'gone'
        ? { kind: 'gone', at, deliveryId: ctx.deliveryId }
        : { kind: 'attempt_failed', at, code: outcome.code, deliveryId: ctx.deliveryId, replay };
  const reports = worthReporting(ctx, result.health, outcomeReport);
  const exhaustedReports = () =>
    s.singleReplay
      ? []
      : worthReporting(ctx, result.health, { kind: 'delivery_exhausted', at, deliveryId: ctx.deliveryId });

  let after: AfterReports;
  switch (outcome.kind) {
    case 'success':
      after = { kind: 'finish', status: 'succeeded' };
      break;
    case 'gone':
      // 410 under a preset that disables at once (SPEC §3 "non-retried response").
      after = { kind: 'finish', status: outcome.status, code: outcome.code };
      break;
    case 'dead_letter':
      // A response no retry can change: exhausted after this attempt.
      reports.push(...exhaustedReports());
      after = { kind: 'finish', status: 'exhausted', code: outcome.code };
      break;
    case 'retry':
      logged.delivery.lastCode = outcome.code;
      if (attempt >= logged.delivery.attemptBudget) {
        // SPEC §3 "attempts": the budget is spent, a dead letter.
        reports.push(...exhaustedReports());
        after = { kind: 'finish', status: 'exhausted', code: outcome.code };
      } else {
        after = {
          kind: 'retry',
          attempt,
          finishedAt,
          httpStatus: result.kind === 'rejected' ? result.httpStatus : undefined,
          // The sender's own code, as the schedule always read it (`timeout` earns Bird's floor).
          code: result.kind === 'delivered' ? outcome.code : result.code,
          retryAfter: result.kind === 'rejected' ? result.retryAfter : undefined,
        };
      }
      break;
  }
  if (reports.length > 0) return { state: { ...logged, after }, step: { kind: 'report', reports } };
  return afterReports(ctx, logged, after, now);
}

function whenReported(ctx: RoundContext, s: RoundState, now: number): Decision {
  if (!s.after) throw new Error('reported with nothing left to decide');
  const { after, ...rest } = s;
  return afterReports(ctx, rest, after, now);
}

function afterReports(ctx: RoundContext, s: RoundState, after: AfterReports, now: number): Decision {
  if (after.kind === 'finish') return finish(s, after.status, after.code);
  // R-DELAY: measured from the failure (this runs as soon as its result, and any report,
  // is in), never from the attempt's start. SPEC §3 "Retry-After honoured on" and "rule".
  const retryAfterMs =
    after.httpStatus !== undefined && retryAfterApplies(ctx.policy, after.httpStatus)
      ? parseRetryAfter(after.retryAfter, new Date(after.finishedAt))
      : undefined;
  const waitMs = nextWaitMs(ctx.policy, {
    failedAttempt: after.attempt - s.scheduleBase,
    random01: ctx.random(),
    status: after.httpStatus,
    error: after.code,
    retryAfterMs,
  });
  return waitFor(s, s.delivery, now, capByLifetime(ctx, s, waitMs, now), 'keep_time');
}

/** R-CRASH, issue 13.5: a send that threw inside Herald. */
function workerError(ctx: RoundContext, s: RoundState, attempt: number, startedAt: number, lease: boolean, now: number): Decision {
  const code = lease ? 'lease_expired' : 'worker_error';
  const times = { startedAt: iso(startedAt), finishedAt: iso(now), latencyMs: 0 };
  const workerErrors = s.workerErrors + 1;
  const st: RoundState = { ...s, deferStreak: undefined, workerErrors };
  if (workerErrors < WORKER_ERROR_LIMIT) {
    // Repeated and not spent (SPEC §5): a crash at once, a bug in the activity after a pause.
    const delivery = record(st, { kind: 'lease_expired', attempt, ...times, code });
    return {
      state: { ...st, delivery: { ...delivery, status: 'pending' } },
      step: { kind: 'sleep', ms: lease ? 0 : WORKER_ERROR_PAUSE_MS },
    };
  }
  // The same send keeps failing inside Herald (a poison event, a bad secret): the attempt
  // is spent, so the schedule and the budget end it. Herald's own fault: no health report.
  const spent: RoundState = { ...st, workerErrors: 0 };
  const delivery = record(spent, {
    kind: 'attempt',
    attempt,
    ...times,
    code,
    detail: `${WORKER_ERROR_LIMIT} sends in a row failed inside Herald (${code}); this attempt is spent`,
  });
  delivery.attemptsInRound = attempt;
  delivery.lastCode = code;
  const logged: RoundState = { ...spent, delivery };
  if (attempt >= delivery.attemptBudget) return finish(logged, 'exhausted', code);
  const waitMs = nextWaitMs(ctx.policy, { failedAttempt: attempt - s.scheduleBase, random01: ctx.random(), error: code });
  return waitFor(logged, delivery, now, capByLifetime(ctx, logged, waitMs, now), 'keep_time');
}

/** A deferral spends no attempt and does not advance the schedule (SPEC §1). */
function deferred(
  ctx: RoundContext,
  s: RoundState,
  attempt: number,
  times: { startedAt: string; finishedAt: string; latencyMs: number },
  code: string,
  retryInMs: number,
  startedAt: number,
  finishedAt: number,
): Decision {
  const prev = s.deferStreak;
  const streak: DeferStreak =
    prev === undefined
      ? { code, count: 1, since: startedAt }
      : { code, count: prev.code === code ? prev.count + 1 : 1, since: prev.since };
  const st: RoundState = { ...s, deferStreak: streak };
  const delivery = recordDeferral(st, { kind: 'deferral', attempt, ...times, code }, streak, retryInMs);
  const limitAt = streak.since + DEFERRAL_LIMIT_MS;
  // Issue 14.2: never wait for ever. A dead letter, not an endpoint failure.
  if (finishedAt >= limitAt) return finish({ ...st, delivery, deferStreak: undefined }, 'exhausted', 'deferral_limit');
  let waitMs = retryInMs;
  // Rechecks of a long signalled wait back off; a breaker's own times stay exact.
  const waited = finishedAt - streak.since;
  if (waited >= DEFERRAL_BACKOFF_AFTER_MS && code !== 'circuit_open')
    waitMs = Math.max(waitMs, Math.min(DEFERRAL_BACKOFF_CAP_MS, Math.round(waited / 10)));
  waitMs = Math.min(waitMs, limitAt - finishedAt);
  return waitFor({ ...st, delivery }, delivery, finishedAt, capByLifetime(ctx, st, waitMs, finishedAt), 'recheck');
}

/** A manual recovery that reopens a finished delivery. */
export type Reopen = { kind: 'dlq_retry' } | { kind: 'replay'; mode: 'round' | 'single' };

/**
 * R-RH-DLQ: a dead-letter retry grants 3 more attempts, the schedule restarting from its
 * first step (SPEC §5). R-DT-REPLAY: a replay opens a new round of the policy's attempts;
 * R-BIRD-REPLAY's resend is a round of one. Either restarts the lifetime.
 */
export function reopen(policy: DeliveryPolicy, s: RoundState, cmd: Reopen, now: number): RoundState {
  const { ending: _e, ...rest } = s;
  const d = s.delivery;
  const delivery: DeliveryState =
    cmd.kind === 'dlq_retry'
      ? { ...d, attemptBudget: d.attemptsInRound + DLQ_RETRY_ATTEMPTS }
      : { ...d, round: d.round + 1, attemptsInRound: 0, attemptBudget: cmd.mode === 'single' ? 1 : policy.maxAttempts };
  delivery.lastCode = undefined;
  delivery.status = 'pending';
  return {
    ...rest,
    delivery,
    lifetimeStart: now,
    scheduleBase: cmd.kind === 'dlq_retry' ? d.attemptsInRound : 0,
    singleReplay: cmd.kind === 'dlq_retry' ? s.singleReplay : cmd.mode === 'single',
  };
}

/** Created straight into the dead letters (Dong Tien's hold was full): one refused row, exhausted. */
export function deadOnArrival(s: RoundState, code: string, now: number): RoundState {
  const at = iso(now);
  const delivery = record(s, { kind: 'refused', attempt: 1, startedAt: at, finishedAt: at, latencyMs: 0, code });
  return finish({ ...s, delivery }, 'exhausted', code).state;
}

/** Between rounds: a single-attempt replay lasts one round. */
export function closeRound(s: RoundState): RoundState {
  return { ...s, singleReplay: false };
}

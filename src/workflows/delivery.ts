import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { shouldReport } from '../health/reporting.js';
import { LIFETIME_END_PATCH, lifetimeEndCounts } from '../health/lifetime-end.js';
import type { HealthInput, HealthState } from '../health/types.js';
import { classifyError, classifyResponse, type AttemptOutcome } from '../policy/classify.js';
import { DLQ_RETRY_ATTEMPTS, replayWindowSeconds } from '../policy/replay-window.js';
import { parseRetryAfter, retryAfterApplies } from '../policy/retry-after.js';
import { nextWaitMs } from '../policy/schedule.js';
import type {
  AttemptRecord,
  DeferStreak,
  DeliveryInput,
  DeliveryState,
  DeliveryStatus,
  SendResult,
} from '../shared/delivery-types.js';
import {
  DELIVERY_IN_PROGRESS,
  NOT_A_DEAD_LETTER,
  deliveryStateQuery,
  drainTurnSignal,
  endDeliverySignal,
  markDeadSignal,
  replayDeliveryUpdate,
  retryDeadLetterUpdate,
  wakeSignal,
  type ReplayMode,
} from '../shared/messages.js';
import { reportHealthSignal } from '../shared/endpoint-messages.js';
import { SA_STATUS } from '../shared/search-attributes.js';

type Command = { kind: 'dlq_retry' } | { kind: 'replay'; mode: ReplayMode };

/**
 * Issue 14.1: a run continues as new past this many history events (Temporal stops a
 * run at 51,200). Waits that poll (a pause rechecks every minute, a half-open breaker
 * every 10 s) grow the history with time, not work; a plain delivery never gets near.
 */
export const DELIVERY_ROLLOVER_EVENTS = 1_000;
/** Marks the new command (continueAsNew) for runs whose history predates it. */
export const DELIVERY_ROLLOVER_PATCH = 'delivery-continue-as-new';
/**
 * Issue 13.5: sends in a row that throw inside Herald (worker_error, lease lost) before
 * the attempt is spent. Each is repeated unspent first, so one worker crash costs nothing.
 */
export const WORKER_ERROR_LIMIT = 5;
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

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One event to one endpoint (SPEC §1 "Delivery"). Sleeps through the policy's jittered
 * schedule and calls the send activity once per Herald attempt. After it ends it stays
 * open for the preset's replay window, so a dead-letter retry or a replay continues the
 * same delivery (same id, same attempt log) instead of starting a look-alike.
 */
export async function deliveryWorkflow(input: DeliveryInput): Promise<DeliveryState> {
  const policy = input.policy;
  const { sendAttempt } = proxyActivities<Activities>({
    // The lease (R-CRASH): if the worker dies mid-attempt, Temporal notices after this.
    startToCloseTimeout: `${policy.leaseSeconds}s`,
    // One Herald attempt is one activity execution: Temporal must not retry behind our
    // back, or the receiver could see more requests than the attempt log shows.
    retry: { maximumAttempts: 1 },
  });

  // A run continued from an earlier one (issue 14.1) starts where that one stopped.
  const carried = input.carried;
  const state: DeliveryState = carried?.state ?? {
    deliveryId: input.deliveryId,
    eventId: input.event.id,
    endpointId: input.endpointId,
    status: 'pending',
    round: 1,
    attemptsInRound: 0,
    attemptBudget: policy.maxAttempts,
    attempts: [],
  };
  let lifetimeStart = carried?.lifetimeStart ?? Date.parse(input.createdAt);
  // Attempts of this round before the latest dead-letter retry: the schedule restarts
  // from its first step after such a retry (SPEC §5: immediate, then 1m, 5m).
  let scheduleBase = carried?.scheduleBase ?? 0;
  let singleReplay = carried?.singleReplay ?? false;
  // Set from outside (endpoint disabled, paused, suspended too long): how to end.
  let ending: { status: 'dead' | 'exhausted' | 'failed'; code: string } | undefined = carried?.ending;
  let wake = carried?.wake ?? false;
  let drainTurn = carried?.drainTurn ?? false;
  const bound = input.target === undefined;
  let lastHealth: HealthState | undefined = carried?.lastHealth;
  let command: Command | undefined;
  let workerErrors = carried?.workerErrors ?? 0;
  let deferStreak: DeferStreak | undefined = carried?.deferStreak;

  setHandler(deliveryStateQuery, () => state);
  setHandler(markDeadSignal, ({ code }) => {
    ending ??= { status: 'dead', code };
  });
  setHandler(endDeliverySignal, (e) => {
    ending ??= e;
  });
  // Whoever wakes a delivery just changed the endpoint: the next read must not be cached.
  let freshRead = carried?.freshRead ?? false;
  setHandler(wakeSignal, () => {
    wake = true;
    freshRead = true;
  });
  setHandler(drainTurnSignal, () => {
    drainTurn = true;
    wake = true;
    freshRead = true;
  });
  setHandler(
    retryDeadLetterUpdate,
    () => {
      applyCommand({ kind: 'dlq_retry' });
      return state;
    },
    {
      validator: () => {
        if (state.status !== 'exhausted' || command)
          throw ApplicationFailure.nonRetryable(`delivery is ${state.status}, not a dead letter`, NOT_A_DEAD_LETTER);
      },
    },
  );
  setHandler(
    replayDeliveryUpdate,
    ({ mode }) => {
      applyCommand({ kind: 'replay', mode });
      return state;
    },
    {
      validator: (_args: { mode: ReplayMode }) => {
        if (state.status === 'pending' || state.status === 'processing' || command)
          throw ApplicationFailure.nonRetryable(`delivery is ${state.status}`, DELIVERY_IN_PROGRESS);
      },
    },
  );

  let indexed: DeliveryStatus = carried?.indexed ?? (input.deadLetterOnArrival ? 'exhausted' : 'pending');
  const setIndexedStatus = (status: DeliveryStatus) => {
    state.status = status;
    if (indexed === status) return;
    indexed = status;
    upsertSearchAttributes([{ key: SA_STATUS, value: status }]);
  };
  const publishStatus = setIndexedStatus;

  /** Applied inside the update, so its reply already shows the reopened delivery. */
  const applyCommand = (cmd: Command) => {
    command = cmd;
    ending = undefined;
    lifetimeStart = Date.now();
    if (cmd.kind === 'dlq_retry') {
      scheduleBase = state.attemptsInRound;
      state.attemptBudget = state.attemptsInRound + DLQ_RETRY_ATTEMPTS;
    } else {
      state.round += 1;
      state.attemptsInRound = 0;
      scheduleBase = 0;
      state.attemptBudget = cmd.mode === 'single' ? 1 : policy.maxAttempts;
      singleReplay = cmd.mode === 'single';
    }
    state.lastCode = undefined;
    publishStatus('pending');
  };

  const finish = (status: DeliveryStatus, code?: string) => {
    state.nextAttemptAt = undefined;
    if (code) state.lastCode = code;
    publishStatus(status);
  };

  /** Waits up to `ms`; returns early when the delivery is ended or woken. */
  const waitOrInterrupt = async (ms: number) => {
    wake = false;
    if (ms > 0) await condition(() => ending !== undefined || wake, ms);
  };

  /** Tells the endpoint only what changes its health (shouldReport); never plain successes. */
  const report = async (seen: HealthState | undefined, hi: HealthInput) => {
    if (!bound || !seen || !shouldReport(policy.preset, seen, hi)) return;
    try {
      await getExternalWorkflowHandle(input.endpointId).signal(reportHealthSignal, hi);
    } catch {
      // The endpoint was deleted: nobody left to tell.
    }
  };

  const record = (row: Omit<AttemptRecord, 'round'>) => {
    state.attempts.push({ ...row, round: state.round, ...(singleReplay ? { replay: true } : {}) });
  };

  /**
   * A deferral row; past DEFERRAL_ROWS_KEPT identical ones in a row the last row widens
   * instead, so a month of pause keeps the log (and what continueAsNew carries) small.
   */
  const recordDeferral = (row: Omit<AttemptRecord, 'round'>, streak: DeferStreak, retryInMs: number) => {
    const last = state.attempts[state.attempts.length - 1];
    if (retryInMs < RECHECK_ROW_MAX_MS && streak.count > DEFERRAL_ROWS_KEPT && last?.kind === 'deferral' && last.code === row.code && last.attempt === row.attempt) {
      last.repeats = (last.repeats ?? 1) + 1;
      last.finishedAt = row.finishedAt;
      return;
    }
    record(row);
  };

  /**
   * Issue 14.1: a long wait continues as new before Temporal's history limit ends the run
   * (which would drop the delivery without a status). Called only between attempts, with
   * no activity in flight; every handler only sets fields, and all of them are carried.
   * The patch check runs only when a rollover is due, so a short delivery records nothing.
   */
  const rollOverIfDue = async () => {
    const info = workflowInfo();
    if (!(info.continueAsNewSuggested || info.historyLength > DELIVERY_ROLLOVER_EVENTS)) return;
    if (!patched(DELIVERY_ROLLOVER_PATCH)) return;
    await condition(allHandlersFinished);
    await continueAsNew<typeof deliveryWorkflow>({
      ...input,
      carried: {
        state,
        lifetimeStart,
        scheduleBase,
        singleReplay,
        indexed,
        ending,
        wake,
        drainTurn,
        freshRead,
        lastHealth,
        workerErrors,
        deferStreak,
      },
    });
  };

  /** One round of attempts, until the delivery reaches a final status. */
  const runRound = async (): Promise<void> => {
    for (;;) {
      if (ending !== undefined) return finish(ending.status, ending.code);
      await rollOverIfDue();
      const deadline = policy.lifetimeSeconds == null ? undefined : lifetimeStart + policy.lifetimeSeconds * 1000;
      if (deadline !== undefined && Date.now() >= deadline) {
        // Issue 14.5: still a dead letter (R-STATUS, R-RH-LIFETIME), but only a lifetime the
        // receiver ran out counts toward disabling; one spent held back (a pause past 96 h)
        // does not. patched(): runs recorded before this reported every lifetime end.
        const counts = lifetimeEndCounts(state.attempts, state.round) || !patched(LIFETIME_END_PATCH);
        if (!singleReplay && counts)
          await report(lastHealth, { kind: 'delivery_exhausted', at: Date.now(), deliveryId: input.deliveryId });
        return finish('exhausted', 'lifetime_exceeded');
      }

      const attempt = state.attemptsInRound + 1;
      // R-STATUS in the index too: the upsert rides on the same workflow task as the
      // attempt it announces, so it costs an event, not a round trip.
      setIndexedStatus('processing');
      state.nextAttemptAt = undefined;
      const startedAt = Date.now();
      let result: SendResult;
      try {
        const turn = drainTurn;
        const fresh = freshRead;
        drainTurn = false;
        freshRead = false;
        result = await sendAttempt({
          deliveryId: input.deliveryId,
          tenantId: input.tenantId,
          endpointId: input.endpointId,
          attempt,
          event: input.event,
          target: input.target,
          // A replay or dead-letter retry counts as queued when it was asked for.
          createdAt: iso(lifetimeStart),
          timeoutSeconds: policy.timeoutSeconds,
          deliveryIdHeader: policy.deliveryIdHeader,
          preset: policy.preset,
          drainTurn: turn || undefined,
          freshRead: fresh || undefined,
          scheduledAt: Date.now(),
        });
      } catch (err) {
        // The worker died or hung: the attempt is repeated and not spent (SPEC §5).
        const lease = err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;
        const code = lease ? 'lease_expired' : 'worker_error';
        const times = { startedAt: iso(startedAt), finishedAt: iso(Date.now()), latencyMs: 0 };
        deferStreak = undefined;
        workerErrors += 1;
        if (workerErrors < WORKER_ERROR_LIMIT) {
          record({ kind: 'lease_expired', attempt, ...times, code });
          setIndexedStatus('pending');
          // A crash is repeated at once; a bug in the activity gets a pause so it cannot spin.
          if (!lease) await sleep('5s');
          continue;
        }
        // Issue 13.5: the same send keeps failing inside Herald (a poison event, a bad
        // secret): the attempt is spent, so the schedule and the budget end it. Herald's
        // own fault, so endpoint health never hears of it.
        workerErrors = 0;
        state.attemptsInRound = attempt;
        state.lastCode = code;
        record({
          kind: 'attempt',
          attempt,
          ...times,
          code,
          detail: `${WORKER_ERROR_LIMIT} sends in a row failed inside Herald (${code}); this attempt is spent`,
        });
        if (attempt >= state.attemptBudget) return finish('exhausted', code);
        let waitMs = nextWaitMs(policy, { failedAttempt: attempt - scheduleBase, random01: Math.random(), error: code });
        if (deadline !== undefined) waitMs = Math.min(waitMs, deadline - Date.now());
        setIndexedStatus('pending');
        state.nextAttemptAt = iso(Date.now() + Math.max(0, waitMs));
        await waitOrInterrupt(waitMs);
        const remaining = Date.parse(state.nextAttemptAt) - Date.now();
        if (ending === undefined && !drainTurn && remaining > 0)
          await condition(() => ending !== undefined || drainTurn, remaining);
        continue;
      }
      workerErrors = 0;
      // Attempt times come from the workflow clock so the log, the schedule and
      // Temporal's history agree (and stay meaningful on the time-skipping server).
      const finishedAt = Date.now();
      lastHealth = result.health ?? lastHealth;
      const times = { startedAt: iso(startedAt), finishedAt: iso(finishedAt), latencyMs: result.latencyMs };

      if (result.drop) {
        // The endpoint can no longer take it (disabled, paused for good): no attempt spent.
        record({ kind: 'refused', attempt, ...times, code: result.drop.code });
        return finish(result.drop.endAs, result.drop.code);
      }

      if (result.deferral) {
        // A deferral spends no attempt and does not advance the schedule (SPEC §1).
        const code = result.deferral.code;
        const streak: DeferStreak =
          deferStreak === undefined
            ? { code, count: 1, since: startedAt }
            : { code, count: deferStreak.code === code ? deferStreak.count + 1 : 1, since: deferStreak.since };
        deferStreak = streak;
        recordDeferral({ kind: 'deferral', attempt, ...times, code }, streak, result.deferral.retryInMs);
        const limitAt = streak.since + DEFERRAL_LIMIT_MS;
        if (finishedAt >= limitAt) {
          // Issue 14.2: never wait for ever. A dead letter, not an endpoint failure.
          deferStreak = undefined;
          return finish('exhausted', 'deferral_limit');
        }
        setIndexedStatus('pending');
        let waitMs = result.deferral.retryInMs;
        // Rechecks of a long signalled wait back off; a breaker's own times stay exact.
        const waited = finishedAt - streak.since;
        if (waited >= DEFERRAL_BACKOFF_AFTER_MS && code !== 'circuit_open')
          waitMs = Math.max(waitMs, Math.min(DEFERRAL_BACKOFF_CAP_MS, Math.round(waited / 10)));
        waitMs = Math.min(waitMs, limitAt - finishedAt);
        if (deadline !== undefined) waitMs = Math.min(waitMs, deadline - Date.now());
        state.nextAttemptAt = iso(Date.now() + Math.max(0, waitMs));
        await waitOrInterrupt(waitMs);
        continue;
      }

      const outcome: AttemptOutcome =
        result.code === undefined
          ? { kind: 'success' }
          : result.httpStatus !== undefined
            ? classifyResponse(policy, result.httpStatus)
            : classifyError(policy, result.code);

      deferStreak = undefined;
      if (outcome.kind === 'failed') {
        // Never attempted (R-STATUS `failed`): the row explains why, no attempt is spent.
        record({ kind: 'refused', attempt, ...times, code: outcome.code });
        return finish('failed', outcome.code);
      }
      state.attemptsInRound = attempt;
      const at = finishedAt;
      const replay = singleReplay || undefined;
      await report(
        result.health,
        outcome.kind === 'success'
          ? { kind: 'attempt_succeeded', at, deliveryId: input.deliveryId, replay }
          : outcome.kind === 'gone'
            ? { kind: 'gone', at, deliveryId: input.deliveryId }
            : { kind: 'attempt_failed', at, code: outcome.code, deliveryId: input.deliveryId, replay },
      );
      record({
        kind: 'attempt',
        attempt,
        ...times,
        httpStatus: result.httpStatus,
        code: result.code,
        responseBody: result.responseBody,
        responseBodyEncoding: result.responseBodyEncoding,
        sent: result.sent,
        ...(result.detail ? { detail: result.detail } : {}),
      });

      const exhausted = async (code: string) => {
        if (!singleReplay) await report(result.health, { kind: 'delivery_exhausted', at, deliveryId: input.deliveryId });
        finish('exhausted', code);
      };
      switch (outcome.kind) {
        case 'success':
          return finish('succeeded');
        case 'dead_letter':
          return exhausted(outcome.code);
        case 'gone':
          return finish(outcome.status, outcome.code);
        case 'retry':
          break;
      }
      state.lastCode = outcome.code;
      if (attempt >= state.attemptBudget) return exhausted(outcome.code);

      const retryAfterMs =
        result.httpStatus !== undefined && retryAfterApplies(policy, result.httpStatus)
          ? parseRetryAfter(result.retryAfter, new Date(finishedAt))
          : undefined;
      // R-DELAY: this runs as soon as the failed attempt's result arrives, so the wait
      // is measured from the failure, never from the attempt's start.
      let waitMs = nextWaitMs(policy, {
        failedAttempt: attempt - scheduleBase,
        random01: Math.random(),
        status: result.httpStatus,
        error: result.code,
        retryAfterMs,
      });
      if (deadline !== undefined) waitMs = Math.min(waitMs, deadline - Date.now());
      setIndexedStatus('pending');
      state.nextAttemptAt = iso(Date.now() + Math.max(0, waitMs));
      await waitOrInterrupt(waitMs);
      // A wake only ends deferrals early; a scheduled retry keeps its time unless the
      // Dong Tien drain gives this delivery its turn.
      const remaining = Date.parse(state.nextAttemptAt) - Date.now();
      if (ending === undefined && !drainTurn && remaining > 0)
        await condition(() => ending !== undefined || drainTurn, remaining);
    }
  };

  if (input.deadLetterOnArrival && !carried) {
    const at = iso(Date.now());
    record({ kind: 'refused', attempt: 1, startedAt: at, finishedAt: at, latencyMs: 0, code: input.deadLetterOnArrival });
    finish('exhausted', input.deadLetterOnArrival);
  }

  const holdMs = replayWindowSeconds(policy.preset) * 1000;
  // Dong Tien keeps bodies 90 days from the event, so its window runs from creation;
  // the others count from the end of the latest round (Bird: attempts live 3 days).
  const holdUntil = policy.preset === 'dongtien' ? Date.parse(input.createdAt) + holdMs : undefined;
  for (let first = true; ; first = false) {
    if (!(first && input.deadLetterOnArrival && !carried)) await runRound();
    singleReplay = false;
    // Stay reachable for dead-letter retry and replay until the window closes.
    const hold = holdUntil === undefined ? holdMs : holdUntil - Date.now();
    if (hold <= 0 || !(await condition(() => command !== undefined, hold))) return state;
    command = undefined;
  }
}

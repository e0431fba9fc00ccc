import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { shouldReport } from '../health/reporting.js';
import type { HealthInput, HealthState } from '../health/types.js';
import { classifyError, classifyResponse, type AttemptOutcome } from '../policy/classify.js';
import { DLQ_RETRY_ATTEMPTS, replayWindowSeconds } from '../policy/replay-window.js';
import { parseRetryAfter, retryAfterApplies } from '../policy/retry-after.js';
import { nextWaitMs } from '../policy/schedule.js';
import type {
  AttemptRecord,
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

  const state: DeliveryState = {
    deliveryId: input.deliveryId,
    eventId: input.event.id,
    endpointId: input.endpointId,
    status: 'pending',
    round: 1,
    attemptsInRound: 0,
    attemptBudget: policy.maxAttempts,
    attempts: [],
  };
  let lifetimeStart = Date.parse(input.createdAt);
  // Attempts of this round before the latest dead-letter retry: the schedule restarts
  // from its first step after such a retry (SPEC §5: immediate, then 1m, 5m).
  let scheduleBase = 0;
  let singleReplay = false;
  // Set from outside (endpoint disabled, paused, suspended too long): how to end.
  let ending: { status: 'dead' | 'exhausted' | 'failed'; code: string } | undefined;
  let wake = false;
  let drainTurn = false;
  const bound = input.target === undefined;
  let lastHealth: HealthState | undefined;
  let command: Command | undefined;

  setHandler(deliveryStateQuery, () => state);
  setHandler(markDeadSignal, ({ code }) => {
    ending ??= { status: 'dead', code };
  });
  setHandler(endDeliverySignal, (e) => {
    ending ??= e;
  });
  // Whoever wakes a delivery just changed the endpoint: the next read must not be cached.
  let freshRead = false;
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

  let indexed: DeliveryStatus = input.deadLetterOnArrival ? 'exhausted' : 'pending';
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

  /** One round of attempts, until the delivery reaches a final status. */
  const runRound = async (): Promise<void> => {
    for (;;) {
      if (ending !== undefined) return finish(ending.status, ending.code);
      const deadline = policy.lifetimeSeconds == null ? undefined : lifetimeStart + policy.lifetimeSeconds * 1000;
      if (deadline !== undefined && Date.now() >= deadline) {
        if (!singleReplay) await report(lastHealth, { kind: 'delivery_exhausted', at: Date.now(), deliveryId: input.deliveryId });
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
        record({
          kind: 'lease_expired',
          attempt,
          startedAt: iso(startedAt),
          finishedAt: iso(Date.now()),
          latencyMs: 0,
          code: lease ? 'lease_expired' : 'worker_error',
        });
        setIndexedStatus('pending');
        // A crash is repeated at once; a bug in the activity gets a pause so it cannot spin.
        if (!lease) await sleep('5s');
        continue;
      }
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
        record({ kind: 'deferral', attempt, ...times, code: result.deferral.code });
        setIndexedStatus('pending');
        let waitMs = result.deferral.retryInMs;
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

  if (input.deadLetterOnArrival) {
    const at = iso(Date.now());
    record({ kind: 'refused', attempt: 1, startedAt: at, finishedAt: at, latencyMs: 0, code: input.deadLetterOnArrival });
    finish('exhausted', input.deadLetterOnArrival);
  }

  const holdMs = replayWindowSeconds(policy.preset) * 1000;
  // Dong Tien keeps bodies 90 days from the event, so its window runs from creation;
  // the others count from the end of the latest round (Bird: attempts live 3 days).
  const holdUntil = policy.preset === 'dongtien' ? Date.parse(input.createdAt) + holdMs : undefined;
  for (let first = true; ; first = false) {
    if (!(first && input.deadLetterOnArrival)) await runRound();
    singleReplay = false;
    // Stay reachable for dead-letter retry and replay until the window closes.
    const hold = holdUntil === undefined ? holdMs : holdUntil - Date.now();
    if (hold <= 0 || !(await condition(() => command !== undefined, hold))) return state;
    command = undefined;
  }
}

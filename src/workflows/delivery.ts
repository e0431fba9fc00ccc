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
import { LIFETIME_END_PATCH, lifetimeEndCounts } from '../health/lifetime-end.js';
import { shouldReport } from '../health/reporting.js';
import { readSendResult, type AttemptResult } from '../policy/attempt-result.js';
import {
  closeRound,
  deadOnArrival,
  firstRound,
  nextStep,
  reopen,
  type NextStep,
  type OutcomeReport,
  type Reopen,
  type RoundContext,
  type RoundInput,
  type RoundState,
} from '../policy/next-step.js';
import { openAfterRoundMs } from '../policy/replay-window.js';
import type { DeliveryInput, DeliveryState, DeliveryStatus } from '../shared/delivery-types.js';
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

type Command = Reopen;

export {
  DEFERRAL_BACKOFF_AFTER_MS,
  DEFERRAL_BACKOFF_CAP_MS,
  DEFERRAL_LIMIT_MS,
  DEFERRAL_ROWS_KEPT,
  DELIVERY_ROLLOVER_EVENTS,
  WORKER_ERROR_LIMIT,
} from '../policy/next-step.js';
/** Marks the new command (continueAsNew) for runs whose history predates it. */
export const DELIVERY_ROLLOVER_PATCH = 'delivery-continue-as-new';
/**
 * Issue 17: a wake that arrives while the send is out (a slot freed just as this one was
 * refused for its share) is kept for the deferral that follows, instead of being cleared
 * when the wait starts. Only checked when that happens, so no other run records it.
 */
export const WAKE_DURING_SEND_PATCH = 'delivery-wake-during-send';

/**
 * One event to one endpoint (SPEC §1 "Delivery"). The rules of a round are the pure reducer
 * in policy/next-step.ts; this workflow carries its steps out: the send activity, timers,
 * health signals to the endpoint, the status search attribute and continue-as-new. After a
 * round ends the delivery stays open for the preset's recovery window, so a dead-letter
 * retry or a replay continues the same delivery (same id, same attempt log).
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
  const ctx: RoundContext = {
    policy,
    deliveryId: input.deliveryId,
    bound: input.target === undefined,
    random: Math.random,
    health: {
      shouldReport: (seen, report) => shouldReport(policy.preset, seen, report),
      lifetimeEndCounts,
    },
  };

  // A run continued from an earlier one (issue 14.1) starts where that one stopped.
  const carried = input.carried;
  let round: RoundState = carried
    ? {
        delivery: carried.state,
        lifetimeStart: carried.lifetimeStart,
        scheduleBase: carried.scheduleBase ?? 0,
        singleReplay: carried.singleReplay ?? false,
        ending: carried.ending,
        lastHealth: carried.lastHealth,
        workerErrors: carried.workerErrors ?? 0,
        deferStreak: carried.deferStreak,
      }
    : firstRound(policy, { deliveryId: input.deliveryId, eventId: input.event.id, endpointId: input.endpointId }, Date.parse(input.createdAt));
  // What signals set between steps: the waits read them.
  let wake = carried?.wake ?? false;
  let drainTurn = carried?.drainTurn ?? false;
  // Whoever wakes a delivery just changed the endpoint: the next read must not be cached.
  let freshRead = carried?.freshRead ?? false;
  // A wake while the send is out: it answers the deferral that may come back (issue 17).
  let sending = false;
  let wokenWhileSending = false;
  let command: Command | undefined;

  let indexed: DeliveryStatus = carried?.indexed ?? (input.deadLetterOnArrival ? 'exhausted' : 'pending');
  /**
   * R-STATUS in the index too. Called after every decision, so the upsert rides on the
   * workflow task of the step it announces: an event, not a round trip.
   */
  const publishStatus = () => {
    if (indexed === round.delivery.status) return;
    indexed = round.delivery.status;
    upsertSearchAttributes([{ key: SA_STATUS, value: indexed }]);
  };

  setHandler(deliveryStateQuery, () => round.delivery);
  setHandler(markDeadSignal, ({ code }) => {
    round = { ...round, ending: round.ending ?? { status: 'dead', code } };
  });
  setHandler(endDeliverySignal, (e) => {
    round = { ...round, ending: round.ending ?? e };
  });
  setHandler(wakeSignal, () => {
    wake = true;
    freshRead = true;
    if (sending) wokenWhileSending = true;
  });
  setHandler(drainTurnSignal, () => {
    drainTurn = true;
    wake = true;
    freshRead = true;
  });
  /** Applied inside the update, so its reply already shows the reopened delivery. */
  const applyCommand = (cmd: Command) => {
    command = cmd;
    round = reopen(policy, round, cmd, Date.now());
    publishStatus();
    return round.delivery;
  };
  setHandler(retryDeadLetterUpdate, () => applyCommand({ kind: 'dlq_retry' }), {
    validator: () => {
      const status = round.delivery.status;
      if (status !== 'exhausted' || command)
        throw ApplicationFailure.nonRetryable(`delivery is ${status}, not a dead letter`, NOT_A_DEAD_LETTER);
    },
  });
  setHandler(replayDeliveryUpdate, ({ mode }) => applyCommand({ kind: 'replay', mode }), {
    validator: (_args: { mode: ReplayMode }) => {
      const status = round.delivery.status;
      if (status === 'pending' || status === 'processing' || command)
        throw ApplicationFailure.nonRetryable(`delivery is ${status}`, DELIVERY_IN_PROGRESS);
    },
  });

  const ended = () => round.ending !== undefined;

  /** Tells the endpoint; the reducer already left out what changes nothing (shouldReport). */
  const report = async (hi: OutcomeReport) => {
    try {
      await getExternalWorkflowHandle(input.endpointId).signal(reportHealthSignal, hi);
    } catch {
      // The endpoint was deleted: nobody left to tell.
    }
  };

  /** The send activity, its result read as one AttemptResult; a throw is Herald's own failure. */
  const send = async (step: Extract<NextStep, { kind: 'send' }>): Promise<AttemptResult> => {
    const turn = drainTurn;
    const fresh = freshRead;
    drainTurn = false;
    freshRead = false;
    sending = true;
    wokenWhileSending = false;
    try {
      const result = await sendAttempt({
        deliveryId: input.deliveryId,
        tenantId: input.tenantId,
        endpointId: input.endpointId,
        attempt: step.attempt,
        event: input.event,
        target: input.target,
        createdAt: step.createdAt,
        timeoutSeconds: policy.timeoutSeconds,
        deliveryIdHeader: policy.deliveryIdHeader,
        preset: policy.preset,
        drainTurn: turn || undefined,
        freshRead: fresh || undefined,
        scheduledAt: Date.now(),
      });
      return readSendResult(result);
    } catch (err) {
      // The worker died or hung (its lease ran out), or the activity threw.
      return { kind: 'worker_error', lease: err instanceof ActivityFailure && err.cause instanceof TimeoutFailure };
    } finally {
      sending = false;
    }
  };

  /**
   * Issue 14.1: continue as new before Temporal's history limit ends the run (which would
   * drop the delivery without a status). Only between attempts, with no activity in flight;
   * every handler only sets fields, and all of them are carried. The patch check runs only
   * when a rollover is due, so a short delivery records nothing. Returns only when refused.
   */
  const rollOver = async () => {
    if (!patched(DELIVERY_ROLLOVER_PATCH)) return;
    await condition(allHandlersFinished);
    await continueAsNew<typeof deliveryWorkflow>({
      ...input,
      carried: {
        state: round.delivery,
        lifetimeStart: round.lifetimeStart,
        scheduleBase: round.scheduleBase,
        singleReplay: round.singleReplay,
        indexed,
        ending: round.ending,
        wake,
        drainTurn,
        freshRead,
        lastHealth: round.lastHealth,
        workerErrors: round.workerErrors,
        deferStreak: round.deferStreak,
      },
    });
  };

  const ready = (rollOverRefused?: true): RoundInput => {
    const info = workflowInfo();
    return {
      kind: 'ready',
      now: Date.now(),
      history: { events: info.historyLength, suggested: info.continueAsNewSuggested },
      rollOverRefused,
    };
  };

  /** One round of attempts, until the delivery reaches a final status. */
  const runRound = async (): Promise<void> => {
    let happened: RoundInput = ready();
    for (;;) {
      const decision = nextStep(ctx, round, happened);
      round = decision.state;
      publishStatus();
      const step = decision.step;
      switch (step.kind) {
        case 'end':
          return;
        case 'roll_over':
          await rollOver();
          happened = ready(true);
          break;
        case 'send': {
          const result = await send(step);
          happened = { kind: 'sent', now: Date.now(), result };
          break;
        }
        case 'report':
          if (step.unlessPatched === undefined || !patched(LIFETIME_END_PATCH))
            for (const hi of step.reports) await report(hi);
          happened = { kind: 'reported', now: Date.now() };
          break;
        case 'sleep':
          if (step.ms > 0) await sleep(step.ms);
          happened = ready();
          break;
        case 'wait': {
          const keepWake = wokenWhileSending && step.onWake === 'recheck' && patched(WAKE_DURING_SEND_PATCH);
          wokenWhileSending = false;
          if (!keepWake) wake = false;
          if (step.ms > 0) await condition(() => ended() || wake, step.ms);
          if (step.onWake === 'keep_time') {
            // A wake only ends deferrals early; a scheduled retry keeps its time unless the
            // Dong Tien drain gives this delivery its turn.
            const remaining = step.untilMs - Date.now();
            if (!ended() && !drainTurn && remaining > 0) await condition(() => ended() || drainTurn, remaining);
          }
          happened = ready();
          break;
        }
      }
    }
  };

  const arrivedDead = !!input.deadLetterOnArrival && !carried;
  if (input.deadLetterOnArrival && arrivedDead) {
    round = deadOnArrival(round, input.deadLetterOnArrival, Date.now());
    publishStatus();
  }

  const createdAtMs = Date.parse(input.createdAt);
  for (let first = true; ; first = false) {
    if (!(first && arrivedDead)) await runRound();
    round = closeRound(round);
    // Stay reachable for dead-letter retry and replay until the window closes.
    const hold = openAfterRoundMs(policy, createdAtMs, Date.now());
    if (hold <= 0 || !(await condition(() => command !== undefined, hold))) return round.delivery;
    command = undefined;
  }
}

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
  proxyLocalActivities,
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
  FIRST_TASK_REPEATED_AT_HISTORY_LENGTH,
  inlineAttemptSeconds,
  inlineFits,
} from '../policy/inline-attempt.js';
import {
  closeRound,
  deadOnArrival,
  deferredAtPublish,
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
import { orderDoneSignal, reportHealthSignal } from '../shared/endpoint-messages.js';
import { RATE_DEFERRAL_CODE } from '../flow/limiter.js';
import { SA_STATUS } from '../shared/search-attributes.js';

type Command = Reopen;

/** Issue 16: the statuses a run that closes at its round's end writes to HeraldStatus. */
const INDEXED_ENDINGS: readonly DeliveryStatus[] = ['exhausted', 'dead', 'failed'];

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
  // Issue 16: the first attempt of a run that closes at its round's end goes out inside the
  // run's first workflow task, the same send as a local activity: a delivery whose first
  // attempt succeeds is started and completed by one workflow task. Only when it ends before
  // the SDK would heartbeat the task (policy/inline-attempt.ts); retries keep the activity.
  const inlineFirst =
    input.closesAtRoundEnd === true && !input.carried && inlineFits(policy, workflowInfo().taskTimeoutMs);
  const { sendAttempt: sendInline } = proxyLocalActivities<Activities>({
    startToCloseTimeout: `${inlineAttemptSeconds(policy)}s`,
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
    : input.reopened
      ? // Issue 16: a dead-letter retry or replay of a closed delivery, a new run of its id
        // seeded with the last run's final state: same attempt log, next round or budget.
        reopen(
          policy,
          {
            delivery: input.reopened.previous,
            lifetimeStart: Date.now(),
            scheduleBase: 0,
            singleReplay: false,
            workerErrors: 0,
          },
          input.reopened.command,
          Date.now(),
        )
      : firstRound(
          policy,
          { deliveryId: input.deliveryId, eventId: input.event.id, endpointId: input.endpointId },
          Date.parse(input.createdAt),
        );
  // Issue 17: the publish reserved this delivery's turn and started it just before.
  const pacedTurn = !carried && !input.reopened ? input.pacedTurn : undefined;
  if (pacedTurn) round = deferredAtPublish(round, pacedTurn, RATE_DEFERRAL_CODE);
  /** The reserved turn is the run's first send's alone; any later one asks. */
  let firstTurnAt = pacedTurn?.sendAt;
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
    // Issue 16: a run that closes at its round's end writes only what a list filters on (the
    // dead letters, dead and failed); `processing` and `succeeded` are read from the run itself
    // (running, completed), so a successful delivery costs no upsert.
    if (
      input.closesAtRoundEnd &&
      !INDEXED_ENDINGS.includes(round.delivery.status) &&
      !INDEXED_ENDINGS.includes(indexed)
    )
      return;
    indexed = round.delivery.status;
    upsertSearchAttributes([{ key: SA_STATUS, value: indexed }]);
  };

  /** Each signal is one event of the history, those before the first task included. */
  let signalsHeard = 0;
  setHandler(deliveryStateQuery, () => round.delivery);
  setHandler(markDeadSignal, ({ code }) => {
    signalsHeard++;
    round = { ...round, ending: round.ending ?? { status: 'dead', code } };
  });
  setHandler(endDeliverySignal, (e) => {
    signalsHeard++;
    round = { ...round, ending: round.ending ?? e };
  });
  setHandler(wakeSignal, () => {
    signalsHeard++;
    wake = true;
    freshRead = true;
    if (sending) wokenWhileSending = true;
  });
  setHandler(drainTurnSignal, () => {
    signalsHeard++;
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

  /**
   * R-CRASH: a hint that this run's first workflow task is a repeat (it timed out or failed:
   * the worker that ran it died or hung during the inline attempt, which may have been sent).
   * Only the local activity reads it, and only when it runs; a replay takes the activity's
   * recorded answer whatever the hint says (a replay from the start reports the whole
   * history's length here), so nothing the workflow decides may depend on it directly.
   */
  const repeatedFirstTask = () =>
    workflowInfo().historyLength - signalsHeard >= FIRST_TASK_REPEATED_AT_HISTORY_LENGTH;
  /** Still the run's first send, before anything was awaited: it may go out inline. */
  let firstSend = inlineFirst;
  /** The send activity, its result read as one AttemptResult; a throw is Herald's own failure. */
  const send = async (step: Extract<NextStep, { kind: 'send' }>): Promise<AttemptResult> => {
    const turn = drainTurn;
    const fresh = freshRead;
    drainTurn = false;
    freshRead = false;
    sending = true;
    wokenWhileSending = false;
    const inline = firstSend;
    firstSend = false;
    const turnAt = firstTurnAt;
    firstTurnAt = undefined;
    try {
      const req = {
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
        ...(input.ordered ? { ordered: true as const } : {}),
        ...(turnAt !== undefined ? { turnAt } : {}),
      };
      // The first task's command is the local activity even when the task is a repeat, so
      // a replay issues the same commands whatever it reads; the recorded result decides.
      let result = inline
        ? await sendInline({
            ...req,
            inline: true,
            ...(repeatedFirstTask() ? { firstTaskRepeated: true as const } : {}),
          })
        : undefined;
      // The lost inline attempt is logged as a lost lease, spending none (from the run's
      // start, when it went out, to now); it is repeated as the activity, with its lease.
      if (result?.inlineLost)
        return { kind: 'worker_error', lease: true, startedAt: workflowInfo().startTime.getTime() };
      // No inline slot free on that worker: the same attempt as the activity, nothing spent.
      if (result === undefined || result.inlineDeclined) result = await sendAttempt(req);
      return readSendResult(result);
    } catch (err) {
      // The worker died or hung (its lease ran out), or the activity threw. A replay hands
      // back a timed-out local activity as the bare TimeoutFailure (the live run got it
      // wrapped in an ActivityFailure): both are the same lost lease.
      const timedOut =
        err instanceof TimeoutFailure ||
        (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure);
      return { kind: 'worker_error', lease: timedOut };
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
      reopened: undefined,
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

  /**
   * The run's first step is taken in its first activation, where a live history is only a few
   * events long; a replay from the start may report the whole history's length there, so the
   * first step never reads it (a rollover read from it would differ from what ran).
   */
  let firstReady = true;
  const ready = (rollOverRefused?: true): RoundInput => {
    const info = workflowInfo();
    const history = firstReady
      ? { events: 0, suggested: false }
      : { events: info.historyLength, suggested: info.continueAsNewSuggested };
    firstReady = false;
    return { kind: 'ready', now: Date.now(), history, rollOverRefused };
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
            if (!ended() && !drainTurn && remaining > 0)
              await condition(() => ended() || drainTurn, remaining);
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

  /**
   * Issue 17 (`ordering: 'fifo'`): the round ended, so the next ordered delivery may go. Only
   * ordered deliveries (a new input field) send it: no other history gets the command. A
   * dead-letter retry or replay later is a new round that joins the queue at its tail.
   */
  const releaseOrder = async () => {
    if (!input.ordered) return;
    try {
      await getExternalWorkflowHandle(input.endpointId).signal(orderDoneSignal, { deliveryId: input.deliveryId });
    } catch {
      // The endpoint was deleted: no queue left.
    }
  };

  const createdAtMs = Date.parse(input.createdAt);
  for (let first = true; ; first = false) {
    if (!(first && arrivedDead)) await runRound();
    round = closeRound(round);
    await releaseOrder();
    // Issue 16: the run closes with its round; a dead-letter retry or replay starts a new
    // run of the same id from this result (`reopened`). A command taken in this very
    // activation (an update accepted as the round ended) still runs here.
    if (input.closesAtRoundEnd) {
      if (command === undefined) return round.delivery;
      command = undefined;
      continue;
    }
    // Stay reachable for dead-letter retry and replay until the window closes.
    const hold = openAfterRoundMs(policy, createdAtMs, Date.now());
    if (hold <= 0 || !(await condition(() => command !== undefined, hold))) return round.delivery;
    command = undefined;
  }
}

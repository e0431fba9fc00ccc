import {
  ActivityFailure,
  TimeoutFailure,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { classifyError, classifyResponse, type AttemptOutcome } from '../policy/classify.js';
import { parseRetryAfter, retryAfterApplies } from '../policy/retry-after.js';
import { nextWaitMs } from '../policy/schedule.js';
import type {
  AttemptRecord,
  DeliveryInput,
  DeliveryState,
  DeliveryStatus,
  SendResult,
} from '../shared/delivery-types.js';
import { deliveryStateQuery } from '../shared/messages.js';
import { SA_STATUS } from '../shared/search-attributes.js';

/**
 * One event to one endpoint (SPEC §1 "Delivery"). Sleeps through the policy's jittered
 * schedule and calls the send activity once per Herald attempt.
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
    attempts: [],
  };
  setHandler(deliveryStateQuery, () => state);

  const deadline =
    policy.lifetimeSeconds == null ? undefined : Date.parse(input.createdAt) + policy.lifetimeSeconds * 1000;

  const finish = (status: DeliveryStatus, code?: string): DeliveryState => {
    state.status = status;
    state.nextAttemptAt = undefined;
    if (code) state.lastCode = code;
    upsertSearchAttributes([{ key: SA_STATUS, value: status }]);
    return state;
  };

  for (;;) {
    if (deadline !== undefined && Date.now() >= deadline) return finish('exhausted', 'lifetime_exceeded');

    const attempt = state.attemptsInRound + 1;
    state.status = 'processing';
    state.nextAttemptAt = undefined;
    let result: SendResult;
    const started = new Date(Date.now()).toISOString();
    try {
      result = await sendAttempt({
        deliveryId: input.deliveryId,
        attempt,
        event: input.event,
        target: input.target,
        timeoutSeconds: policy.timeoutSeconds,
        deliveryIdHeader: policy.deliveryIdHeader,
      });
    } catch (err) {
      // The worker died or hung: the attempt is repeated and not spent (SPEC §5).
      const lease = err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;
      state.attempts.push({
        kind: 'lease_expired',
        attempt,
        round: state.round,
        startedAt: started,
        finishedAt: new Date(Date.now()).toISOString(),
        latencyMs: 0,
        code: lease ? 'lease_expired' : 'worker_error',
      });
      state.status = 'pending';
      if (!lease) await sleep('5s');
      continue;
    }
    state.attemptsInRound = attempt;
    // Attempt times come from the workflow clock so the log, the schedule and Temporal's
    // history agree (and stay meaningful on the time-skipping test server).
    const finishedAt = Date.now();
    state.attempts.push(toRecord(result, attempt, state.round, started, new Date(finishedAt).toISOString()));

    const outcome: AttemptOutcome =
      result.code === undefined
        ? { kind: 'success' }
        : result.httpStatus !== undefined
          ? classifyResponse(policy, result.httpStatus)
          : classifyError(policy, result.code);

    switch (outcome.kind) {
      case 'success':
        return finish('succeeded');
      case 'failed':
        return finish('failed', outcome.code);
      case 'dead_letter':
        return finish('exhausted', outcome.code);
      case 'gone':
        return finish(outcome.status, outcome.code);
      case 'retry':
        break;
    }
    state.lastCode = outcome.code;
    if (attempt >= policy.maxAttempts) return finish('exhausted', outcome.code);

    const retryAfterMs =
      result.httpStatus !== undefined && retryAfterApplies(policy, result.httpStatus)
        ? parseRetryAfter(result.retryAfter, new Date(finishedAt))
        : undefined;
    let waitMs = nextWaitMs(policy, {
      failedAttempt: attempt,
      random01: Math.random(),
      status: result.httpStatus,
      error: result.code,
      retryAfterMs,
    });
    // R-DELAY: this runs as soon as the failed attempt's result arrives, so the wait is
    // measured from the failure, never from the attempt's start.
    if (deadline !== undefined) waitMs = Math.min(waitMs, deadline - Date.now());
    state.status = 'pending';
    state.nextAttemptAt = new Date(Date.now() + Math.max(0, waitMs)).toISOString();
    if (waitMs > 0) await sleep(waitMs);
  }
}

function toRecord(
  r: SendResult,
  attempt: number,
  round: number,
  startedAt: string,
  finishedAt: string,
): AttemptRecord {
  return {
    kind: 'attempt',
    attempt,
    round,
    startedAt,
    finishedAt,
    latencyMs: r.latencyMs,
    httpStatus: r.httpStatus,
    code: r.code,
    responseBody: r.responseBody,
  };
}

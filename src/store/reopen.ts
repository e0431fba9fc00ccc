import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { deliveryTaskTimeoutSeconds } from '../policy/inline-attempt.js';
import { reopen, type Reopen, type RoundState } from '../policy/next-step.js';
import type { DeliveryInput, DeliveryState } from '../shared/delivery-types.js';
import { deliveryPriority } from '../shared/fairness.js';
import { DELIVERY_WORKFLOW } from '../shared/names.js';
import { deliverySearchAttributes } from '../shared/search-attributes.js';
import type { DeliveryRef } from './deliveries.js';
import { closedState, startInputOf } from './delivery-envelope.js';
import { unlessNotFound } from './not-found.js';

/**
 * What a reopen came to: the delivery as it now stands (pending, its next round or budget),
 * `refused` when its state does not allow the command or someone reopened it first, `gone`
 * when Temporal no longer keeps the run (past retention).
 */
/** The memo key of a reopened run: which reopen started it. */
const REOPEN_MEMO = 'heraldReopen';

/**
 * The client's start option for the request id (`InternalWorkflowStartOptionsSymbol`, what
 * @temporalio/nexus sets): the public options have none, and the server's de-duplication by
 * request id is the only guard a start has. Registered by name, so no SDK internals are
 * imported; if the SDK stops reading it, the concurrent reopen test in
 * 16.1-closed-deliveries.test.ts fails.
 */
const START_REQUEST = Symbol.for('__temporal_internal_client_workflow_start_options');

export type ReopenOutcome = { ok: true; state: DeliveryState } | { ok: false; reason: 'refused' | 'gone' };

/**
 * Issue 16: a dead-letter retry or a replay of a closed delivery is a new run of the same
 * workflow id, seeded with the previous run's final state (its result), with the first run's
 * input otherwise: the same deliveryId and event envelope, so the attempt log, rounds,
 * Idempotency-Key and webhook-id continue. Only these starts reuse a closed id
 * (ALLOW_DUPLICATE); publish keeps rejecting duplicates (R-IDEMP).
 *
 * `allowed` is the check an update's validator makes on an open run (exhausted for a
 * retry; not pending or in flight for a replay). Two reopens of one run start one new run,
 * in this process or across processes: the other is refused as the validator refuses a
 * second update. A reopen that reads a newer run than its own is refused at once. One whose
 * read was current but whose start comes second is answered by the server with the run the
 * first started, by their shared request id (`reopen-of-<previous run>`), even once that
 * run has closed, and refused, since the run is not its own (the memo's nonce). Without
 * that, a reopen starting after the first reopen's run had already ended would start a
 * third run from the stale state, and send again. (Left open: a reopen whose read and start
 * straddle two whole reopen cycles of the same delivery.)
 *
 * The reply is `reopen()` applied to the previous state, exactly what the new run's first
 * step computes, so it shows the reopened delivery without waiting for a worker.
 */
export async function reopenClosedDelivery(
  client: Client,
  ref: Pick<DeliveryRef, 'id' | 'runId'>,
  command: Reopen,
  allowed: (previous: DeliveryState) => boolean,
): Promise<ReopenOutcome> {
  const [input, previous] = await Promise.all([
    startInputOf<DeliveryInput>(client, ref.id, ref.runId),
    closedState(client, ref.id, ref.runId),
  ]);
  if (!input || !previous) return { ok: false, reason: 'gone' };
  if (!allowed(previous)) return { ok: false, reason: 'refused' };
  // The run read must still be the delivery's latest: a reopen that started (and even
  // finished) in between has its own state, which this one would overwrite.
  const now = await unlessNotFound(client.workflow.getHandle(ref.id).describe());
  if (!now) return { ok: false, reason: 'gone' };
  if (now.runId !== ref.runId) return { ok: false, reason: 'refused' };
  const next: DeliveryInput = {
    ...input,
    carried: undefined,
    deadLetterOnArrival: undefined,
    closesAtRoundEnd: true,
    reopened: { previous, command },
  };
  // Which start made the run the server answers with: this one, or the first of two.
  const nonce = randomUUID();
  let runId: string;
  try {
    const options: WorkflowStartOptions & { [START_REQUEST]: { requestId: string } } = {
      workflowId: ref.id,
      taskQueue: now.taskQueue,
      args: [next],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      // As every start since issue 16: the first attempt runs inside the first workflow task.
      workflowTaskTimeout: `${deliveryTaskTimeoutSeconds(next.policy)}s`,
      typedSearchAttributes: deliverySearchAttributes(next),
      priority: deliveryPriority(next.endpointId),
      memo: { [REOPEN_MEMO]: nonce },
      [START_REQUEST]: { requestId: `reopen-of-${ref.runId}` },
    };
    runId = (await client.workflow.start(DELIVERY_WORKFLOW, options)).firstExecutionRunId;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { ok: false, reason: 'refused' };
    throw err;
  }
  const started = await unlessNotFound(client.workflow.getHandle(ref.id, runId).describe());
  if (started?.memo?.[REOPEN_MEMO] !== nonce) return { ok: false, reason: 'refused' };
  const seeded: RoundState = {
    delivery: previous,
    lifetimeStart: Date.now(),
    scheduleBase: 0,
    singleReplay: false,
    workerErrors: 0,
  };
  return { ok: true, state: reopen(input.policy, seeded, command, Date.now()).delivery };
}

import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DeliveryInput } from '../shared/delivery-types.js';
import { DELIVERY_WORKFLOW } from '../shared/names.js';
import { deliveryPriority } from '../shared/fairness.js';
import { deliverySearchAttributes } from '../shared/search-attributes.js';
import { deliveryTaskTimeoutSeconds } from '../policy/inline-attempt.js';

export interface StartDeliveryResult {
  deliveryId: string;
  /** False when this delivery already existed (R-IDEMP): nothing new was started. */
  created: boolean;
}

export interface StartDeliveryOptions {
  eager?: boolean;
  startDelayMs?: number;
}

export async function startDelivery(
  client: Client,
  taskQueue: string,
  input: DeliveryInput,
  opts: StartDeliveryOptions = {},
): Promise<StartDeliveryResult> {
  try {
    await client.workflow.start(DELIVERY_WORKFLOW, {
      workflowId: input.deliveryId,
      taskQueue,
      // Issue 16: every new delivery closes when its round ends.
      args: [{ ...input, closesAtRoundEnd: true }],
      // Even a finished delivery keeps its id for the retention period: republishing
      // the same event must not deliver it again. Only a dead-letter retry or a replay
      // starts a closed id again (store/, issue 16).
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Issue 16: the first attempt runs inside the first workflow task; its timeout covers it.
      workflowTaskTimeout: `${deliveryTaskTimeoutSeconds(input.policy)}s`,
      typedSearchAttributes: deliverySearchAttributes(input),
      priority: deliveryPriority(input.endpointId),
      // With a worker on the same connection, the server hands the first workflow task
      // back in the start response: no trip through matching before the first attempt.
      // Issue 17: a delivery whose rate-limited turn is reserved runs just before it; until
      // then it costs no workflow task (a delayed start is never eager).
      ...(opts.startDelayMs
        ? { startDelay: opts.startDelayMs }
        : opts.eager
          ? { requestEagerStart: true }
          : {}),
    });
    return { deliveryId: input.deliveryId, created: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      return { deliveryId: input.deliveryId, created: false };
    throw err;
  }
}

import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DeliveryInput } from '../shared/delivery-types.js';
import { DELIVERY_WORKFLOW } from '../shared/names.js';
import {
  SA_ENDPOINT,
  SA_EVENT_ID,
  SA_EVENT_TYPE,
  SA_PRESET,
  SA_STATUS,
  SA_TENANT,
} from '../shared/search-attributes.js';

export interface StartDeliveryResult {
  deliveryId: string;
  /** False when this delivery already existed (R-IDEMP): nothing new was started. */
  created: boolean;
}

export async function startDelivery(
  client: Client,
  taskQueue: string,
  input: DeliveryInput,
): Promise<StartDeliveryResult> {
  try {
    await client.workflow.start(DELIVERY_WORKFLOW, {
      workflowId: input.deliveryId,
      taskQueue,
      args: [input],
      // Even a finished delivery keeps its id for the retention period: republishing
      // the same event must not deliver it again.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SA_TENANT, value: input.tenantId },
        { key: SA_ENDPOINT, value: input.endpointId },
        { key: SA_EVENT_TYPE, value: input.event.type },
        { key: SA_EVENT_ID, value: input.event.id },
        { key: SA_PRESET, value: input.policy.preset },
        { key: SA_STATUS, value: 'pending' },
      ],
    });
    return { deliveryId: input.deliveryId, created: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { deliveryId: input.deliveryId, created: false };
    throw err;
  }
}

import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { startChild } from '@temporalio/workflow';
import type { EventInput, EventRecord } from '../shared/event-types.js';
import {
  SA_ENDPOINT,
  SA_EVENT_ID,
  SA_EVENT_TYPE,
  SA_PRESET,
  SA_STATUS,
  SA_TENANT,
} from '../shared/search-attributes.js';
import { deliveryWorkflow } from './delivery.js';

/**
 * One published event: its record (what the events API reads back, delivered or not)
 * and its fan-out. Starting every delivery from here makes the fan-out durable: once the
 * API has started this workflow and answered 202, no delivery can be lost to a crash.
 */
export async function eventWorkflow(input: EventInput): Promise<EventRecord> {
  await Promise.all(
    input.deliveries.map(async (d) => {
      try {
        await startChild(deliveryWorkflow, {
          workflowId: d.deliveryId,
          args: [d],
          // Deliveries outlive the event's own record and must not be cancelled with it.
          parentClosePolicy: 'ABANDON',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: SA_TENANT, value: d.tenantId },
            { key: SA_ENDPOINT, value: d.endpointId },
            { key: SA_EVENT_TYPE, value: d.event.type },
            { key: SA_EVENT_ID, value: d.event.id },
            { key: SA_PRESET, value: d.policy.preset },
            { key: SA_STATUS, value: 'pending' },
          ],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }),
  );
  return {
    eventId: input.event.id,
    type: input.event.type,
    occurredAt: input.event.occurredAt,
    body: input.event.body,
    deliveries: input.deliveries.map((d) => ({ id: d.deliveryId, endpointId: d.endpointId })),
    skipped: input.skipped,
  };
}

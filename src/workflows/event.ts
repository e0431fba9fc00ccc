import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { startChild } from '@temporalio/workflow';
import type { EventInput, EventRecord } from '../shared/event-types.js';
import { deliverySearchAttributes } from '../shared/search-attributes.js';
import { deliveryWorkflow } from './delivery.js';

/**
 * One published event: its record (what the events API reads back, delivered or not)
 * and its fan-out. Starting every delivery from here makes the fan-out durable: once the
 * API has started this workflow and answered 202, no delivery can be lost to a crash.
 */
export async function eventWorkflow(input: EventInput): Promise<EventRecord> {
  await Promise.all(
    input.deliveries.map(async (partial) => {
      const d = { ...partial, event: partial.event ?? input.event };
      try {
        await startChild(deliveryWorkflow, {
          workflowId: d.deliveryId,
          args: [d],
          // Deliveries outlive the event's own record and must not be cancelled with it.
          parentClosePolicy: 'ABANDON',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: deliverySearchAttributes(d),
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

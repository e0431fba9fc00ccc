import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { startChild } from '@temporalio/workflow';
import { deliveryPriority } from '../shared/fairness.js';
import { eventRecordOf, type EventInput, type EventRecord } from '../shared/event-types.js';
import { deliverySearchAttributes } from '../shared/search-attributes.js';
import { deliveryTaskTimeoutSeconds } from '../policy/inline-attempt.js';
import { deliveryWorkflow } from './delivery.js';

/**
 * One published event: its record (what the events API reads back, delivered or not)
 * and, for publishers on a Temporal client, its fan-out: starting every delivery from
 * here makes the fan-out durable once this workflow is started. The HTTP API starts the
 * deliveries itself before it answers 202 (one workflow task fewer on the way to the
 * first attempt) and keeps this workflow as the record only.
 */
export async function eventWorkflow(input: EventInput): Promise<EventRecord> {
  if (!input.deliveriesStarted) await fanOut(input);
  return eventRecordOf(input);
}

async function fanOut(input: EventInput): Promise<void> {
  await Promise.all(
    input.deliveries.map(async (partial) => {
      // Issue 16: every new delivery closes when its round ends.
      const d = { ...partial, event: partial.event ?? input.event, closesAtRoundEnd: true as const };
      try {
        await startChild(deliveryWorkflow, {
          workflowId: d.deliveryId,
          args: [d],
          // Deliveries outlive the event's own record and must not be cancelled with it.
          parentClosePolicy: 'ABANDON',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: deliverySearchAttributes(d),
          priority: deliveryPriority(d.endpointId),
          // Issue 16: the first attempt runs inside the first workflow task; its timeout covers it.
          workflowTaskTimeout: `${deliveryTaskTimeoutSeconds(d.policy)}s`,
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }),
  );
}

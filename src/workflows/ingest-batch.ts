import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { startChild } from '@temporalio/workflow';
import type { DeliveryInput } from '../shared/delivery-types.js';
import { forwardSearchAttributes } from '../shared/forward-attributes.js';
import { FORWARD_WORKFLOW } from '../shared/names.js';

export interface IngestBatchInput {
  /** Forwards of requests the ingest route acknowledged together; each becomes its own workflow. */
  forwards: DeliveryInput[];
}

/**
 * R-RH-INBOUND under load: requests that reach the ingest route while an earlier start is
 * in flight are accepted together by starting this one workflow (one durable write for
 * many requests), which then starts each forward. Once this workflow exists the forwards
 * cannot be lost: a worker that dies mid-way resumes here.
 */
export async function ingestBatchWorkflow(input: IngestBatchInput): Promise<void> {
  await Promise.all(
    input.forwards.map(async (f) => {
      try {
        await startChild(FORWARD_WORKFLOW, {
          workflowId: f.deliveryId,
          args: [f],
          // Forwards outlive the batch and must not be cancelled with it.
          parentClosePolicy: 'ABANDON',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: forwardSearchAttributes(f),
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }),
  );
}

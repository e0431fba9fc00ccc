import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { reportHealthSignal } from '../shared/endpoint-messages.js';

/**
 * Issue 14.10: tells a Dong Tien endpoint that an event found its hold full, so it is
 * disabled and what it holds becomes dead letters (the `hold_full` health input). The
 * publish route calls this before it accepts the event: if the signal cannot be sent the
 * publish fails and its retry counts the hold again, so the overflow is never accepted
 * without the endpoint hearing of it. Repeats are harmless (an endpoint disables once).
 */
export async function reportHoldFull(client: Client, endpointId: string, at: number): Promise<void> {
  try {
    await client.workflow.getHandle(endpointId).signal(reportHealthSignal, { kind: 'hold_full', at });
  } catch (err) {
    // Deleted since the directory read: nothing left to disable.
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

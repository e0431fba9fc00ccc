import type { Client } from '@temporalio/client';
import type { EndpointDescription } from '../shared/health-memo.js';

/**
 * Issue 16: what a DescribeWorkflowExecution of an endpoint workflow tells its readers (the
 * memo, whether a task is pending, the run). A describe is neither a billable action nor a
 * task for a worker, unlike the query it saves.
 */
export async function describeEndpoint(
  client: Client,
  endpointId: string,
): Promise<EndpointDescription & { runId: string }> {
  const d = await client.workflow.getHandle(endpointId).describe();
  return {
    running: d.status.name === 'RUNNING',
    memo: d.memo,
    pendingTask: !!d.raw.pendingWorkflowTask,
    runId: d.runId,
  };
}

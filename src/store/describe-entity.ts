import type { Client } from '@temporalio/client';
import type { EndpointDescription } from '../shared/health-memo.js';
import { snapshotStillCurrent, type SnapshotStamp } from '../shared/snapshot-memo.js';

/**
 * Issue 16: what a DescribeWorkflowExecution of an entity workflow (an endpoint, a tenant)
 * tells its readers: the memo, whether a task is pending, the run. A describe is neither a
 * billable action nor a task for a worker, unlike the query it saves.
 */
export async function describeEntity(
  client: Client,
  workflowId: string,
): Promise<EndpointDescription & { runId: string }> {
  const d = await client.workflow.getHandle(workflowId).describe();
  return {
    running: d.status.name === 'RUNNING',
    memo: d.memo,
    pendingTask: !!d.raw.pendingWorkflowTask,
    runId: d.runId,
  };
}

/** Whether an answer stamped `stamp` is still what the workflow would answer, by one describe. */
export async function stillCurrent(
  client: Client,
  workflowId: string,
  stamp: SnapshotStamp | undefined,
  now: number,
): Promise<boolean> {
  if (!stamp) return false;
  return snapshotStillCurrent(await describeEntity(client, workflowId), stamp, now);
}

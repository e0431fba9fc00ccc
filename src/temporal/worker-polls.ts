// The server's side of "is this worker polling?": the workflow-task pollers it has seen on a
// task queue, each with its identity and when it last polled.
import { tsToMs } from '@temporalio/common';
import proto from '@temporalio/proto';

const { temporal } = proto;
type DescribeRequest = proto.temporal.api.workflowservice.v1.IDescribeTaskQueueRequest;

/** Either connection (the client's or the worker's) serves this call. */
export interface TaskQueueDescriber {
  workflowService: {
    describeTaskQueue(
      req: DescribeRequest,
    ): Promise<proto.temporal.api.workflowservice.v1.IDescribeTaskQueueResponse>;
  };
}

/**
 * When the server last saw `identity` poll `taskQueue` for workflow tasks; null if it lists
 * no such poller (it forgets one that stopped minutes ago). Throws when the server does not
 * answer, which says nothing about the worker.
 */
export async function lastWorkflowPoll(
  connection: TaskQueueDescriber,
  namespace: string,
  taskQueue: string,
  identity: string,
): Promise<Date | null> {
  const res = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const mine = (res.pollers ?? []).filter((p) => p.identity === identity && p.lastAccessTime);
  if (mine.length === 0) return null;
  return new Date(Math.max(...mine.map((p) => tsToMs(p.lastAccessTime))));
}

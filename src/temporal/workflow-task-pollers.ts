/**
 * Issue 16 (7): how many workflow-task polls a worker keeps open on each of its two queues.
 *
 * A new delivery's first task comes with its start (eager) or from the task queue, where
 * matching hands tasks out fair by endpoint, and it usually completes the delivery, so it
 * never needs this worker's sticky queue. The sticky queue carries what follows a first task
 * in the same worker (a send's result, a wake, an endpoint's signal or query). The SDK's
 * default (10 polls, 2 on the task queue) let the task queue hand this worker 10-14 tasks a
 * second while a burst was accepted, so other endpoints' first tasks waited there 3-6 s; with
 * 5 there it took 24-36 a second (BENCHMARKS.md, session 34).
 *
 * The SDK takes a total and a ratio, and opens `max(1, floor(total * ratio))` polls on the task
 * queue and the rest, at least 1, on the sticky queue (sdk-core `wft_poller_behavior`). The
 * total is the poller behaviour's maximum (TypeScript SDK 1.24 documents
 * `maxConcurrentWorkflowTaskPolls` but does not read it). Each open poll holds a workflow-task
 * slot, so as the SDK does, the total is at most the worker's slots; the split then keeps its
 * proportion.
 */
export interface WorkflowTaskPolls {
  workflowTaskPollerBehavior: { type: 'simple-maximum'; maximum: number };
  nonStickyToStickyPollRatio: number;
}

export function workflowTaskPolls(
  taskQueuePolls: number,
  stickyPolls: number,
  slots: number,
): WorkflowTaskPolls {
  for (const [name, n] of [
    ['taskQueuePolls', taskQueuePolls],
    ['stickyPolls', stickyPolls],
    ['slots', slots],
  ] as const)
    if (!(Number.isInteger(n) && n >= 1))
      throw new RangeError(`${name} must be a whole number of at least 1`);
  const wanted = taskQueuePolls + stickyPolls;
  return {
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: Math.max(2, Math.min(wanted, slots)) },
    // Half a poll above the count, so the SDK's floor lands on it whatever the float rounding.
    nonStickyToStickyPollRatio: (taskQueuePolls + 0.5) / wanted,
  };
}

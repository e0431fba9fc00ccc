// Endpoints, tenants and sources run on a task queue of their own beside the deliveries'
// (HERALD_TASK_QUEUE), served by a worker with a workflow cache of its own. The SDK (core
// 1.24) can drop an activation of a run whose tasks waited together for a cache slot ("Extra
// buffered run should not have produced an activation"), after which that run answers no
// query and takes no signal until the worker restarts. A cache full of sleeping deliveries is
// what makes tasks wait for a slot; an endpoint on that cache wedged the 50,000 backlog bench
// (BENCHMARKS.md, session 30). On their own queue the few long-lived workflows never wait
// behind deliveries.
const ENTITY_SUFFIX = '-entities';

/** The entity queue beside `taskQueue`; the entity queue itself for one already. */
export function entityTaskQueue(taskQueue: string): string {
  return taskQueue.endsWith(ENTITY_SUFFIX) ? taskQueue : `${taskQueue}${ENTITY_SUFFIX}`;
}

import type { Next, WorkflowClientInterceptor, WorkflowQueryInput } from '@temporalio/client';

// The SDK's core (1.24, and sdk-core's main in May 2026) can drop an activation when two
// tasks of one run wait together for a slot in a full workflow cache: the task whose history
// it had to fetch comes back full and waits again, the run's next task waits after it, and
// the later one is taken first (`maybe_wfts.pop()` in workflow_stream.rs). That one goes to
// fetch its history, the full one creates the run, and its activation is thrown away. Two
// queries at once to a workflow the worker no longer caches (an idle endpoint or tenant, with
// the cache full of sleeping deliveries) are enough; the run then answers nothing until the
// worker restarts (sdk-wedge.ts). So this process sends a workflow one query at a time: the
// next waits until the one before has its answer, and the run is cached again by then.
const lanes = new Map<string, Promise<unknown>>();

/** Queries to one workflow of one namespace, from every client in this process, one after the other. */
export function oneQueryAtATime(
  namespace: string,
  workflowId: string,
  query: () => Promise<unknown>,
): Promise<unknown> {
  // A workflow id names a workflow only within its namespace; a process may hold clients of two.
  const lane = JSON.stringify([namespace, workflowId]);
  const before = lanes.get(lane);
  const answer = before ? before.then(query, query) : query();
  const done = answer.then(
    () => undefined,
    () => undefined,
  );
  lanes.set(lane, done);
  void done.then(() => {
    if (lanes.get(lane) === done) lanes.delete(lane);
  });
  return answer;
}

/** How many workflows have a query out or waiting (tests). */
export function queryLanesOpen(): number {
  return lanes.size;
}

/** Every client Herald builds carries this (herald-client.ts). */
export class OneQueryPerWorkflow implements WorkflowClientInterceptor {
  /** `namespace`: the client's, which the query's input does not carry. */
  constructor(private readonly namespace: string) {}

  query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>): Promise<unknown> {
    return oneQueryAtATime(this.namespace, input.workflowExecution.workflowId, () => next(input));
  }
}

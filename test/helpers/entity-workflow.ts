import type { Client } from '@temporalio/client';
import { SNAPSHOT_MEMO_KEY } from '../../src/shared/snapshot-memo.js';

/** What a describe of an entity workflow (an endpoint, a tenant) shows its readers. */
export interface EntityDescription {
  runId: string;
  /** The revision in the memo; undefined for a workflow that writes none. */
  memoRev: number | undefined;
  pendingTask: boolean;
  running: boolean;
}

/**
 * An entity workflow as Herald's describe-checked readers see it (issue 16): a query
 * answers whatever `answer` makes of `state`, a describe shows the description part of
 * it; both are counted. `state` also holds whatever the test's answers depend on.
 */
export function entityWorkflow<S extends object>(own: S, answer: (state: EntityDescription & S) => unknown) {
  const state: EntityDescription & S = { runId: 'run-1', memoRev: 0, pendingTask: false, running: true, ...own };
  const calls = { queries: 0, describes: 0 };
  const client = {
    workflow: {
      getHandle: () => ({
        describe: async () => {
          calls.describes++;
          return {
            runId: state.runId,
            status: { name: state.running ? 'RUNNING' : 'COMPLETED' },
            memo: state.memoRev === undefined ? {} : { [SNAPSHOT_MEMO_KEY]: state.memoRev },
            raw: { pendingWorkflowTask: state.pendingTask ? { state: 1 } : null },
          };
        },
        query: async () => {
          calls.queries++;
          return answer(state);
        },
      }),
    },
  } as unknown as Client;
  return { client, state, calls };
}

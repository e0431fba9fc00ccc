import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_MEMO_KEY } from '../../src/shared/snapshot-memo.js';
import { Directory } from '../../src/store/directory.js';

/** A tenant workflow as the API's key lookup sees it: stamped keys by query, its memo by describe. */
function tenant() {
  const state = { rev: 0, keys: [{ keyId: 'k1', hash: 'h1' }], pendingTask: false };
  const calls = { queries: 0, describes: 0 };
  const client = {
    workflow: {
      getHandle: () => ({
        describe: async () => {
          calls.describes++;
          return {
            runId: 'run-1',
            status: { name: 'RUNNING' },
            memo: { [SNAPSHOT_MEMO_KEY]: state.rev },
            raw: { pendingWorkflowTask: state.pendingTask ? { state: 1 } : null },
          };
        },
        query: async () => {
          calls.queries++;
          return { keys: [...state.keys], stamp: { runId: 'run-1', rev: state.rev } };
        },
      }),
    },
  } as unknown as Client;
  return { client, state, calls };
}

const settled = () => new Promise((r) => setTimeout(r, 5));

describe('issue 16: the API re-reads a tenant\'s keys by describe, and queries only when they changed', () => {
  it('R-AUTH: an unchanged tenant stands on describes; a key revoked elsewhere stops working at the next expiry', async () => {
    const t = tenant();
    let now = 1_000_000;
    const dir = new Directory(t.client, () => now);
    expect(await dir.tenantKeys('tn_1')).toEqual([{ keyId: 'k1', hash: 'h1' }]);
    for (let i = 0; i < 5; i++) {
      now += 2001;
      await dir.tenantKeys('tn_1');
      await settled();
    }
    expect(t.calls).toEqual({ queries: 1, describes: 5 });

    // Revoked through another API process: the tenant's memo moves on. The expired entry
    // answers once while it is read again, as before.
    t.state.keys = [];
    t.state.rev++;
    now += 2001;
    await dir.tenantKeys('tn_1');
    await settled();
    expect(await dir.tenantKeys('tn_1')).toEqual([]);
    expect(t.calls.queries).toBe(2);
  });

  it('queries while the tenant has a task pending (an update not yet applied)', async () => {
    const t = tenant();
    let now = 1_000_000;
    const dir = new Directory(t.client, () => now);
    await dir.tenantKeys('tn_1');
    t.state.pendingTask = true;
    now += 2001;
    await dir.tenantKeys('tn_1');
    await settled();
    expect(t.calls.queries).toBe(2);
  });
});

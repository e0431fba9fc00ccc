import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { TenantCache } from '../../src/activities/tenant-activities.js';
import { SNAPSHOT_MEMO_KEY } from '../../src/shared/snapshot-memo.js';

/** A tenant workflow as a worker's cache sees it: a stamped view by query, its memo by describe. */
function tenant() {
  const state = { rev: 0, active: true, pendingTask: false };
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
          return {
            tenantId: 'tn_1',
            subscriptionActive: state.active,
            stamp: { runId: 'run-1', rev: state.rev },
          };
        },
      }),
    },
  } as unknown as Client;
  return { client, state, calls };
}

describe('issue 16: a worker re-reads its tenant by describe, and queries only what changed', () => {
  it('R-SMENGO-INACTIVE: an unchanged tenant stands on describes; a subscription switched off is read at the next expiry', async () => {
    const t = tenant();
    let now = 1_000_000;
    const cache = new TenantCache(t.client, 1000, () => now);
    expect((await cache.get('tn_1'))?.subscriptionActive).toBe(true);
    for (let i = 0; i < 5; i++) {
      now += 1001;
      await cache.get('tn_1');
    }
    expect(t.calls).toEqual({ queries: 1, describes: 5 });

    t.state.active = false;
    t.state.rev++;
    now += 1001;
    expect((await cache.get('tn_1'))?.subscriptionActive).toBe(false);
    expect(t.calls.queries).toBe(2);
  });

  it('queries while a task is pending, past the trust period, and when asked for a fresh read', async () => {
    const t = tenant();
    let now = 1_000_000;
    const cache = new TenantCache(t.client, 1000, () => now, 5000);
    await cache.get('tn_1');
    t.state.pendingTask = true;
    now += 1001;
    await cache.get('tn_1');
    expect(t.calls.queries).toBe(2);
    t.state.pendingTask = false;
    for (let i = 0; i < 5; i++) {
      now += 1001;
      await cache.get('tn_1');
    }
    expect(t.calls.queries).toBe(3);
    await cache.get('tn_1', true);
    expect(t.calls.queries).toBe(4);
  });
});

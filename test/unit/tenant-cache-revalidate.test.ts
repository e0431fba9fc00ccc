import { describe, expect, it } from 'vitest';
import { TenantCache } from '../../src/activities/tenant-activities.js';
import { entityWorkflow } from '../helpers/entity-workflow.js';

/** A tenant workflow as a worker's cache sees it: a stamped view by query, its memo by describe. */
function tenant() {
  const t = entityWorkflow({ rev: 0, active: true }, (state) => ({
    tenantId: 'tn_1',
    subscriptionActive: state.active,
    stamp: { runId: state.runId, rev: state.rev },
  }));
  // A change to the view is in the memo at once, as the workflow's memoize writes it.
  const bump = () => (t.state.memoRev = ++t.state.rev);
  return { ...t, bump };
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
    t.bump();
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

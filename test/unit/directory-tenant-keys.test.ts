import { describe, expect, it } from 'vitest';
import { entityWorkflow } from '../helpers/entity-workflow.js';
import { Directory } from '../../src/store/directory.js';

/** A tenant workflow as the API's key lookup sees it: stamped keys by query, its memo by describe. */
function tenant() {
  const t = entityWorkflow({ rev: 0, keys: [{ keyId: 'k1', hash: 'h1' }] }, (state) => ({
    keys: [...state.keys],
    stamp: { runId: state.runId, rev: state.rev },
  }));
  const bump = () => (t.state.memoRev = ++t.state.rev);
  return { ...t, bump };
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
    t.bump();
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

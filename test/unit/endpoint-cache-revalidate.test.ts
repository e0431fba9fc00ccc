import { describe, expect, it } from 'vitest';
import { EndpointSnapshotCache } from '../../src/activities/endpoint-cache.js';
import type { EndpointSnapshot } from '../../src/shared/endpoint-types.js';
import type { SnapshotStamp } from '../../src/shared/snapshot-memo.js';
import { entityWorkflow } from '../helpers/entity-workflow.js';

/**
 * An endpoint workflow as a delivery's cache sees it: a query answers its snapshot stamped
 * with the run and revision, a describe shows the run, the memo and a pending task.
 */
function endpoint() {
  const { client, state, calls } = entityWorkflow(
    {
      rev: 0,
      memoRev: 0 as number | undefined,
      url: 'http://127.0.0.1:1/a',
      validUntil: undefined as number | undefined,
      stamped: true,
    },
    (state) => {
      const stamp: SnapshotStamp = {
        runId: state.runId,
        rev: state.rev,
        ...(state.validUntil ? { validUntil: state.validUntil } : {}),
      };
      return { url: state.url, ...(state.stamped ? { stamp } : {}) } as unknown as EndpointSnapshot;
    },
  );
  /** The endpoint changes what its snapshot answers: a new revision, in the memo at once. */
  const change = (url: string) => {
    state.url = url;
    state.rev++;
    state.memoRev = state.rev;
  };
  return { client, state, calls, change };
}

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('issue 16: a delivery re-reads its endpoint by describe, and queries only what changed', () => {
  it('an expired entry of an unchanged endpoint stands after one describe, with no query', async () => {
    const e = endpoint();
    const c = clock();
    const cache = new EndpointSnapshotCache(e.client, 1000, c.now);
    expect((await cache.get('ep')).url).toBe('http://127.0.0.1:1/a');
    for (let i = 0; i < 5; i++) {
      c.advance(1001);
      expect((await cache.get('ep')).url).toBe('http://127.0.0.1:1/a');
    }
    expect(e.calls).toEqual({ queries: 1, describes: 5 });
    // Within the TTL it is not even described.
    await cache.get('ep');
    expect(e.calls.describes).toBe(5);
  });

  it('R-SIGN / R-RH-TRANSFORM: a change to the endpoint is read at the next expiry, by a query', async () => {
    const e = endpoint();
    const c = clock();
    const cache = new EndpointSnapshotCache(e.client, 1000, c.now);
    await cache.get('ep');
    e.change('http://127.0.0.1:1/b');
    // Within the TTL the held answer still serves: the same freshness as before issue 16.
    expect((await cache.get('ep')).url).toBe('http://127.0.0.1:1/a');
    c.advance(1001);
    expect((await cache.get('ep')).url).toBe('http://127.0.0.1:1/b');
    expect(e.calls.queries).toBe(2);
  });

  it('queries when the memo cannot tell: a task pending, another run, a closed workflow, no revision in the memo', async () => {
    for (const [what, set] of [
      ['a workflow task pending', (s: ReturnType<typeof endpoint>['state']) => (s.pendingTask = true)],
      ['a new run (continue-as-new)', (s: ReturnType<typeof endpoint>['state']) => (s.runId = 'run-2')],
      ['closed', (s: ReturnType<typeof endpoint>['state']) => (s.running = false)],
      ['no revision in the memo', (s: ReturnType<typeof endpoint>['state']) => (s.memoRev = undefined)],
    ] as const) {
      const e = endpoint();
      const c = clock();
      const cache = new EndpointSnapshotCache(e.client, 1000, c.now);
      await cache.get('ep');
      set(e.state);
      c.advance(1001);
      await cache.get('ep');
      expect(e.calls.queries, what).toBe(2);
    }
  });

  it('R-SIGN: an answer holding a secret in its grace period is queried again once that secret expires', async () => {
    const e = endpoint();
    const c = clock();
    e.state.validUntil = c.now() + 2500;
    const cache = new EndpointSnapshotCache(e.client, 1000, c.now);
    await cache.get('ep');
    c.advance(1001);
    await cache.get('ep');
    expect(e.calls.queries).toBe(1);
    c.advance(1600);
    await cache.get('ep');
    expect(e.calls.queries).toBe(2);
  });

  it('queries at least once per trust period, and every time for an answer with no stamp (an older worker)', async () => {
    const e = endpoint();
    const c = clock();
    const cache = new EndpointSnapshotCache(e.client, 1000, c.now, 100, 5000);
    await cache.get('ep');
    for (let i = 0; i < 10; i++) {
      c.advance(1001);
      await cache.get('ep');
    }
    // 10 s of expiries at a 5 s trust period: the first query and two more.
    expect(e.calls.queries).toBe(3);

    const old = endpoint();
    old.state.stamped = false;
    const oldCache = new EndpointSnapshotCache(old.client, 1000, c.now);
    await oldCache.get('ep');
    c.advance(1001);
    await oldCache.get('ep');
    expect(old.calls).toEqual({ queries: 2, describes: 0 });
  });

  it('after this worker changed the endpoint itself (invalidate), the next read is a query', async () => {
    const e = endpoint();
    const c = clock();
    const cache = new EndpointSnapshotCache(e.client, 1000, c.now);
    await cache.get('ep');
    cache.invalidate('ep');
    await cache.get('ep');
    expect(e.calls).toEqual({ queries: 2, describes: 0 });
  });
});

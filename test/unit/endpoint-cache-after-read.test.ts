import type { Client } from '@temporalio/client';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EndpointSnapshotCache } from '../../src/activities/endpoint-cache.js';
import type { EndpointSnapshot } from '../../src/shared/endpoint-types.js';
import { HEALTH_MEMO_KEY } from '../../src/shared/health-memo.js';

/**
 * Counts endpoint reads (describes and queries) and stamps each answer with the time its
 * read was sent. `describe` is what the endpoint workflow's describe would answer.
 */
function countingClient(
  latencyMs: number,
  describe: { memo?: Record<string, unknown>; pendingTask?: boolean; running?: boolean } = {},
) {
  const sent: number[] = [];
  const queries: number[] = [];
  const client = {
    workflow: {
      getHandle: () => ({
        describe: async () => {
          const at = Date.now();
          sent.push(at);
          await delay(latencyMs);
          return {
            status: { name: describe.running === false ? 'COMPLETED' : 'RUNNING' },
            memo: describe.memo ?? { [HEALTH_MEMO_KEY]: { sentAt: at } },
            raw: { pendingWorkflowTask: describe.pendingTask ? { state: 1 } : null },
          };
        },
        query: async () => {
          const at = Date.now();
          queries.push(at);
          await delay(latencyMs);
          return { health: { sentAt: at, byQuery: true } } as unknown as EndpointSnapshot;
        },
      }),
    },
  } as unknown as Client;
  return { client, sent, queries };
}

describe('14.4 R-DT-HEALTH: reading an endpoint after an outcome costs bounded queries', () => {
  it('every outcome is judged on a query sent after it, and a burst shares them: at most one per spacing', async () => {
    const { client, sent } = countingClient(5);
    const cache = new EndpointSnapshotCache(client, 1000, Date.now, 100);
    const outcomes: Array<Promise<void>> = [];
    const t0 = Date.now();
    // 200 outcomes over about 1 s, as a burst to one endpoint would finish.
    for (let i = 0; i < 200; i++) {
      const at = Date.now();
      outcomes.push(
        cache.readAfter('ep_1').then((health) => {
          expect((health as unknown as { sentAt: number }).sentAt).toBeGreaterThanOrEqual(at);
        }),
      );
      await delay(5);
    }
    await Promise.all(outcomes);
    const seconds = (Date.now() - t0) / 1000;
    // Back to back, 5 ms queries would have been about 100 a second.
    expect(sent.length).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 2);
    expect(sent.length).toBeGreaterThanOrEqual(2);
  });

  it('a quiet endpoint waits for nothing: its first after-read goes out at once', async () => {
    const { client, sent } = countingClient(1);
    const cache = new EndpointSnapshotCache(client, 1000, Date.now, 100);
    const t = Date.now();
    await cache.readAfter('ep_quiet');
    expect(Date.now() - t).toBeLessThan(50);
    expect(sent).toHaveLength(1);
  });

  it('issue 16: the health comes from the memo by describe; no query while the memo is current', async () => {
    const { client, sent, queries } = countingClient(1, {
      memo: { [HEALTH_MEMO_KEY]: { status: 'active', consecutiveFailures: 3 } },
    });
    const cache = new EndpointSnapshotCache(client, 1000, Date.now, 100);
    expect(await cache.readAfter('ep')).toEqual({ status: 'active', consecutiveFailures: 3 });
    expect(sent).toHaveLength(1);
    expect(queries).toHaveLength(0);
  });

  it('issue 16: a pending workflow task (a report not applied yet), no memo, or a closed endpoint: asked by query', async () => {
    for (const d of [{ pendingTask: true }, { memo: {} }, { running: false }]) {
      const { client, queries } = countingClient(1, d);
      const cache = new EndpointSnapshotCache(client, 1000, Date.now, 100);
      expect(await cache.readAfter('ep')).toMatchObject({ byQuery: true });
      expect(queries).toHaveLength(1);
    }
  });
});

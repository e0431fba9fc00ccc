import type { Client } from '@temporalio/client';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EndpointSnapshotCache } from '../../src/activities/endpoint-cache.js';
import type { EndpointSnapshot } from '../../src/shared/endpoint-types.js';

/** Counts endpoint queries and stamps each answer with the time its query was sent. */
function countingClient(latencyMs: number) {
  const sent: number[] = [];
  const client = {
    workflow: {
      getHandle: () => ({
        query: async () => {
          const at = Date.now();
          sent.push(at);
          await delay(latencyMs);
          return { sentAt: at } as unknown as EndpointSnapshot;
        },
      }),
    },
  } as unknown as Client;
  return { client, sent };
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
        cache.readAfter('ep_1').then((snap) => {
          expect((snap as unknown as { sentAt: number }).sentAt).toBeGreaterThanOrEqual(at);
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
});

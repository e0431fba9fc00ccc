import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDeliveries, createDevEndpoint, publishBound } from '../helpers/bound-deliveries.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

// Load tests run after every other suite, on their own dev server, one file at a time.
describe('endpoint history under load (scale discipline)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  const receiver = new Receiver();
  let base: string;

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('scale: thousands of successful deliveries to one healthy endpoint add no events to its history', async () => {
    // CI runs 2,000; the 10,000 measurement is recorded in BENCHMARKS.md (HERALD_TEST_SCALE_N=10000).
    const n = Number(process.env.HERALD_TEST_SCALE_N ?? 2_000);
    receiver.respondWith((_r, _i, res) => res.writeHead(204).end());
    const tq = w.config.HERALD_TASK_QUEUE;
    const { endpointId, handle } = await createDevEndpoint(w.client, tq, 'standard', `${base}/busy`);
    await expect
      .poll(async () => (await handle.describe()).historyLength, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const before = (await handle.describe()).historyLength;

    const t0 = Date.now();
    await publishBound(w.client, tq, endpointId, 'standard', n, { concurrency: 32, tag: 's' });
    await expect
      .poll(() => countDeliveries(w.client, endpointId, 'succeeded'), { timeout: 600_000, interval: 2000 })
      .toBe(n);
    const after = (await handle.describe()).historyLength;
    // Recorded in BENCHMARKS.md.
    console.log(`[scale] ${n} deliveries succeeded; endpoint history ${before} -> ${after} events`);
    // Deliveries read the endpoint by cached query and report nothing on success.
    expect(after - before).toBeLessThanOrEqual(5);
    expect(receiver.requests.filter((r) => r.path === '/busy')).toHaveLength(n);
    console.log(`[scale] published and delivered in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }, 900_000);
});

import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  disableEndpointUpdate,
  endpointViewQuery,
  resumeEndpointUpdate,
} from '../../src/shared/endpoint-messages.js';
import { countDeliveries, createDevEndpoint, publishBound } from '../helpers/bound-deliveries.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

describe('endpoint health on the dev server (visibility-driven)', () => {
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

  it('R-SMENGO-HEALTH: disabling an endpoint with 1,000 pending deliveries makes every one dead; none is sent after re-enable', async () => {
    receiver.respondWith((_r, _i, res) => res.writeHead(500).end());
    const { endpointId, handle } = await createDevEndpoint(
      w.client,
      w.config.HERALD_TASK_QUEUE,
      'smengo',
      `${base}/kill`,
    );
    // Each fails once, then waits an hour for its next attempt.
    await publishBound(w.client, w.config.HERALD_TASK_QUEUE, endpointId, 'smengo', 1000, {
      overrides: { retryDelays: [3600] },
      concurrency: 20,
    });
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/kill').length, {
        timeout: 300_000,
        interval: 500,
      })
      .toBe(1000);

    await handle.executeUpdate(disableEndpointUpdate, { args: [{ reason: 'test' }] });
    await expect
      .poll(() => countDeliveries(w.client, endpointId, 'dead'), { timeout: 300_000, interval: 1000 })
      .toBe(1000);
    expect(await countDeliveries(w.client, endpointId, 'pending')).toBe(0);

    receiver.respondWith((_r, _i, res) => res.writeHead(200).end());
    await handle.executeUpdate(resumeEndpointUpdate);
    expect((await handle.query(endpointViewQuery)).health.status).toBe('active');
    await delay(3000);
    expect(receiver.requests.filter((r) => r.path === '/kill')).toHaveLength(1000);
  }, 900_000);

  it('R-DT-HEALTH: 200 held events drain one at a time in creation order; a failure mid-drain stops it with the rest still held', async () => {
    const path = '/drain';
    let inFlight = 0;
    let maxInFlight = 0;
    let failAtSeq: number | undefined;
    receiver.respondWith((req, _i, res) => {
      if (req.path !== path) return res.writeHead(200).end();
      const seq = (JSON.parse(req.body) as { seq?: number }).seq;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const fail = failAtSeq === undefined ? true : seq === failAtSeq;
      setTimeout(() => {
        inFlight--;
        res.writeHead(fail ? 503 : 200).end();
      }, 5);
    });
    const tq = w.config.HERALD_TASK_QUEUE;
    const { endpointId, handle } = await createDevEndpoint(w.client, tq, 'dongtien', `${base}${path}`);
    // Five single-attempt failures in a row suspend the endpoint.
    await publishBound(w.client, tq, endpointId, 'dongtien', 5, { overrides: { maxAttempts: 1 }, tag: 'a' });
    await expect
      .poll(async () => (await handle.query(endpointViewQuery)).health.status, { timeout: 30_000 })
      .toBe('suspended');
    // Deliveries read the endpoint through a 1 s cache: let it expire.
    await delay(1200);

    const sentBefore = receiver.requests.filter((r) => r.path === path).length;
    maxInFlight = 0; // the five that suspended it overlapped; the drain must not
    const held = await publishBound(w.client, tq, endpointId, 'dongtien', 200, { tag: 'b' });
    await expect.poll(() => countDeliveries(w.client, endpointId, 'pending'), { timeout: 30_000 }).toBe(200);
    await delay(1000);
    expect(receiver.requests.filter((r) => r.path === path).length).toBe(sentBefore);

    // Re-enable with the 120th held event (seq 119) failing: the drain must stop there.
    failAtSeq = 119;
    await handle.executeUpdate(resumeEndpointUpdate);
    await expect
      .poll(async () => (await handle.query(endpointViewQuery)).health.status, {
        timeout: 300_000,
        interval: 500,
      })
      .toBe('suspended');
    await delay(1500);
    const drained = receiver.requests.filter((r) => r.path === path).slice(sentBefore);
    expect(drained.map((r) => (JSON.parse(r.body) as { seq: number }).seq)).toEqual(
      Array.from({ length: 120 }, (_, i) => i),
    );
    expect(maxInFlight).toBe(1);
    expect(await countDeliveries(w.client, endpointId, 'pending')).toBe(81);
    expect(await countDeliveries(w.client, endpointId, 'succeeded')).toBe(119);

    // A second re-enable drains the rest, again in order, starting with the one that failed.
    failAtSeq = -1;
    await handle.executeUpdate(resumeEndpointUpdate);
    await expect
      .poll(() => countDeliveries(w.client, endpointId, 'succeeded'), { timeout: 300_000, interval: 500 })
      .toBe(200);
    const all = receiver.requests.filter((r) => r.path === path).slice(sentBefore);
    expect(all.slice(120).map((r) => (JSON.parse(r.body) as { seq: number }).seq)).toEqual(
      Array.from({ length: 81 }, (_, i) => 119 + i),
    );
    expect(maxInFlight).toBe(1);
    expect(held).toHaveLength(200);
  }, 900_000);
});

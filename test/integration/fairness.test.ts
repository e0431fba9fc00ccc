import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

// R-SMENGO-FAIR: a mass operation to one endpoint must not starve the others. The worker
// gets two send slots and the busy receiver takes 150 ms per request, so the burst's sends
// pile up in Temporal's task queue; first-in-first-out would put the quiet endpoint's send
// behind all of them (about 9 s), fairness by endpoint lets it through at once.
describe('fairness across endpoints on the dev server', () => {
  const BURST = 120;
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  const receiver = new Receiver((req, _i, res) => {
    const answer = () => res.writeHead(200).end('ok');
    if (req.path === '/busy') setTimeout(answer, 150);
    else answer();
  });
  let base: string;

  beforeAll(async () => {
    [w, base] = await Promise.all([
      startDevWorker({ HERALD_WORKER_MAX_CONCURRENT_ACTIVITIES: '2' }),
      receiver.start(),
    ]);
    const app = createApp({ client: w.client, config: w.config });
    tenant = await newTenant(app);
    for (const [path, type] of [
      ['/busy', 'mass.update'],
      ['/quiet', 'single.change'],
    ])
      expect(
        (await tenant.call('POST', '/v1/endpoints', { url: `${base}${path}`, eventTypes: [type] })).status,
      ).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('R-SMENGO-FAIR: one event to a quiet endpoint overtakes a queued burst to a busy one', async () => {
    const publish = (type: string, i: number) =>
      tenant.call('POST', '/v1/events', { id: `${type}_${i}_${Date.now()}`, type, payload: { i } });
    for (let i = 0; i < BURST; i += 20)
      await Promise.all(Array.from({ length: 20 }, (_, k) => publish('mass.update', i + k)));
    // Let the burst's sends reach the task queue before the quiet event is published.
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/busy').length, { timeout: 30_000 })
      .toBeGreaterThan(2);
    expect((await publish('single.change', 0)).status).toBe(202);
    await expect
      .poll(() => receiver.requests.some((r) => r.path === '/quiet'), { timeout: 30_000 })
      .toBe(true);
    const busyBefore = receiver.requests.findIndex((r) => r.path === '/quiet');
    // Most of the burst was still waiting when the quiet endpoint got its event.
    expect(busyBefore).toBeLessThan(BURST / 2);
    await receiver.waitFor(BURST + 1, 60_000);
  }, 120_000);
});

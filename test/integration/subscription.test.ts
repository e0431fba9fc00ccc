import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { TEST_OPERATOR_KEY, newTenant } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

describe('tenant subscription (R-SMENGO-INACTIVE)', () => {
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

  it('R-SMENGO-INACTIVE: while inactive a delivery is deferred (no attempt, endpoint untouched); reactivation releases it promptly, not within the hour', async () => {
    const app = createApp({ client: w.client, config: w.config });
    const tenant = await newTenant(app, 'Sleepy');
    const ep = await tenant.call('POST', '/v1/endpoints', { url: `${base}/sub`, preset: 'smengo' });
    expect(ep.status).toBe(201);
    const admin = (active: boolean) =>
      app.request(`/v1/admin/tenants/${tenant.tenantId}/subscription`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_OPERATOR_KEY}` },
        body: JSON.stringify({ active }),
      });
    expect((await admin(false)).status).toBe(200);
    await delay(1200); // the worker reads tenants through a 1 s cache

    const res = await tenant.call('POST', '/v1/events', { type: 'sub.test', payload: {} });
    expect(res.status).toBe(202);
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    const handle = w.client.workflow.getHandle(deliveries[0]!.id);
    await expect
      .poll(async () => (await handle.query(deliveryStateQuery)).attempts.map((a) => a.code), { timeout: 20_000 })
      .toEqual(['subscription_inactive']);
    const held = await handle.query(deliveryStateQuery);
    expect(held.status).toBe('pending');
    expect(held.attemptsInRound).toBe(0);
    // The next try is an hour out.
    expect(Date.parse(held.nextAttemptAt!) - Date.now()).toBeGreaterThan(3_500_000);
    expect(receiver.requests).toHaveLength(0);
    const endpoint = (await (await tenant.call('GET', '/v1/endpoints')).json()) as { data: Array<{ health: { status: string } }> };
    expect(endpoint.data[0]!.health.status).toBe('active');

    const t0 = Date.now();
    expect((await admin(true)).status).toBe(200);
    await receiver.waitFor(1, 30_000);
    expect(Date.now() - t0).toBeLessThan(30_000);
    await expect.poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 10_000 }).toBe('succeeded');
    expect((await handle.query(deliveryStateQuery)).attemptsInRound).toBe(1);
  });
});

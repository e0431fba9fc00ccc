import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import type { DeliveryState } from '../../../src/shared/delivery-types.js';
import { deliveryStateQuery } from '../../../src/shared/messages.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';
import { TEST_OPERATOR_KEY, newTenant } from '../../helpers/api.js';
import { startDevWorker } from '../../helpers/dev-worker.js';
import { Receiver } from '../../helpers/receiver.js';

/**
 * Issue 13.10: deliveries to ad-hoc targets (`targets` in a publish) skipped the
 * inactive-subscription gate, so a tenant whose subscription had lapsed kept sending.
 */
describe('13.10 R-SMENGO-INACTIVE: ad-hoc targets wait out an inactive subscription like endpoints', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  const receiver = new Receiver();
  let base = '';
  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('13.10 R-SMENGO-INACTIVE: while inactive an ad-hoc delivery is deferred (nothing sent, no attempt); after reactivation it is sent', async () => {
    const app = createApp({ client: w.client, config: w.config });
    const tenant = await newTenant(app, 'Lapsed Ad Hoc');
    const admin = (active: boolean) =>
      app.request(`/v1/admin/tenants/${tenant.tenantId}/subscription`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_OPERATOR_KEY}` },
        body: JSON.stringify({ active }),
      });
    expect((await admin(false)).status).toBe(200);
    await delay(1200); // the worker reads tenants through a 1 s cache

    const res = await tenant.call('POST', '/v1/events', {
      type: 'adhoc.sub',
      payload: {},
      targets: [{ url: `${base}/adhoc`, secrets: [generateSecret()] }],
    });
    expect(res.status).toBe(202);
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    expect(deliveries).toHaveLength(1);
    const handle = w.client.workflow.getHandle(deliveries[0]!.id);
    const state = async () => (await handle.query(deliveryStateQuery)) as DeliveryState;

    await expect
      .poll(async () => (await state()).attempts.map((a) => a.code), { timeout: 20_000 })
      .toEqual(['subscription_inactive']);
    const held = await state();
    expect(held.status).toBe('pending');
    expect(held.attemptsInRound).toBe(0);
    expect(held.attempts[0]!.kind).toBe('deferral');
    expect(receiver.requests).toHaveLength(0);

    expect((await admin(true)).status).toBe(200);
    await receiver.waitFor(1, 30_000);
    expect(receiver.requests[0]!.path).toBe('/adhoc');
    await expect.poll(async () => (await state()).status, { timeout: 10_000 }).toBe('succeeded');
    expect((await state()).attemptsInRound).toBe(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { TenantCache } from '../../src/activities/tenant-activities.js';
import { SNAPSHOT_MEMO_KEY, snapshotStillCurrent } from '../../src/shared/snapshot-memo.js';
import { tenantViewQuery } from '../../src/shared/tenant-messages.js';
import { describeEntity } from '../../src/store/describe-entity.js';
import { newTenant, TEST_OPERATOR_KEY } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';

/**
 * Issue 16: workers read a tenant (R-SMENGO-INACTIVE's subscription, issue 17's rate limit)
 * through a cache that checks its held view by describe. The memo must then count every
 * change to the view, from the tenant's start.
 */
describe("issue 16: the tenant counts changes to its view in its memo (a worker's re-read without a query)", () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    w = await startDevWorker();
    app = createApp({ client: w.client, config: w.config });
  });
  afterAll(async () => {
    await w?.stop();
  });

  const admin = (method: string, path: string, body?: unknown) =>
    app.request(`/v1/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_OPERATOR_KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('R-SMENGO-INACTIVE: a subscription change, a key and a rate limit each move the revision; tenants never see it', async () => {
    const { tenantId } = await newTenant(app, '16.4');
    const handle = w.client.workflow.getHandle(tenantId);
    const stampNow = async () => (await handle.query(tenantViewQuery)).stamp;
    const current = async (stamp: Awaited<ReturnType<typeof stampNow>>) =>
      snapshotStillCurrent(await describeEntity(w.client, tenantId), stamp, Date.now());

    const first = await stampNow();
    expect(first).toBeDefined();
    expect((await handle.describe()).memo?.[SNAPSHOT_MEMO_KEY]).toBe(first!.rev);
    expect(await current(first)).toBe(true);

    expect((await admin('PUT', `/tenants/${tenantId}/subscription`, { active: false })).status).toBe(200);
    expect(await current(first)).toBe(false);
    const inactive = await stampNow();
    expect(await current(inactive)).toBe(true);

    expect((await admin('POST', `/tenants/${tenantId}/keys`)).status).toBe(201);
    expect(await current(inactive)).toBe(false);
    const keyed = await stampNow();
    expect(
      (await admin('PUT', `/tenants/${tenantId}/rate-limit`, { rateLimit: { perSecond: 10 } }))
        .status,
    ).toBe(200);
    expect(await current(keyed)).toBe(false);

    const shown = await (await admin('GET', `/tenants/${tenantId}`)).text();
    expect(shown).toContain(tenantId);
    expect(shown).not.toContain('"stamp"');

    // The cache a worker reads through: after its TTL, the subscription switched back on.
    const cache = new TenantCache(w.client, 300);
    expect((await cache.get(tenantId))?.subscriptionActive).toBe(false);
    expect((await admin('PUT', `/tenants/${tenantId}/subscription`, { active: true })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 350));
    expect((await cache.get(tenantId))?.subscriptionActive).toBe(true);
  }, 60_000);
});

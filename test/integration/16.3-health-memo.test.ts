import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { HealthState } from '../../src/health/types.js';
import { EndpointSnapshotCache } from '../../src/activities/endpoint-cache.js';
import { endpointSnapshotQuery, endpointViewQuery } from '../../src/shared/endpoint-messages.js';
import { describeEntity } from '../../src/store/describe-entity.js';
import { HEALTH_MEMO_KEY, healthFromDescription } from '../../src/shared/health-memo.js';
import { SNAPSHOT_MEMO_KEY, snapshotStillCurrent } from '../../src/shared/snapshot-memo.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * Issue 16: a delivery judges its outcome on the endpoint's health as it stands after it
 * (14.4), read from the endpoint workflow's memo by describe rather than by a query. The
 * memo must then say what the endpoint says, after every change, from the endpoint's start.
 */
describe('issue 16: the endpoint keeps its health in its memo (14.4 after-reads without a query)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let t: TenantSession;
  const receiver = new Receiver();
  let base: string;

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    t = await newTenant(createApp({ client: w.client, config: w.config }), '16.3');
    receiver.respondWith((_req, _i, res) => res.writeHead(500).end());
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  const viewHealth = async (id: string): Promise<HealthState> =>
    ((await (await t.call('GET', `/v1/endpoints/${id}`)).json()) as { health: HealthState }).health;
  const memoHealth = async (id: string) => {
    const d = await w.client.workflow.getHandle(id).describe();
    return {
      memo: d.memo?.[HEALTH_MEMO_KEY] as HealthState | undefined,
      read: healthFromDescription({
        running: d.status.name === 'RUNNING',
        memo: d.memo,
        pendingTask: !!d.raw.pendingWorkflowTask,
      }),
    };
  };

  it("R-DT-HEALTH: from its start, after failures, a pause and a resume, the memo a delivery reads is the endpoint's health", async () => {
    const res = await t.call('POST', '/v1/endpoints', {
      url: `${base}/fails`,
      preset: 'dongtien',
      eventTypes: ['memo.*'],
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const id = ((await res.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
    // There from the start (a start option, no command of the workflow's own).
    expect((await memoHealth(id)).memo).toEqual(await viewHealth(id));

    const agree = async () => {
      const [m, v] = await Promise.all([memoHealth(id), viewHealth(id)]);
      return m.read !== undefined && JSON.stringify(m.read) === JSON.stringify(v) ? v : undefined;
    };
    // A real failure reported by its delivery: the streak is in the memo.
    expect((await t.call('POST', '/v1/events', { type: 'memo.one', payload: { n: 1 } })).status).toBeLessThan(
      300,
    );
    await expect
      .poll(async () => ((await agree())?.consecutiveFailures ?? 0) >= 1, { timeout: 30_000 })
      .toBe(true);

    expect((await t.call('POST', `/v1/endpoints/${id}/pause`)).status).toBe(200);
    await expect.poll(async () => (await agree())?.status, { timeout: 20_000 }).toBe('paused');
    expect((await t.call('POST', `/v1/endpoints/${id}/resume`)).status).toBe(200);
    await expect.poll(async () => (await agree())?.status, { timeout: 20_000 }).toBe('active');
  }, 90_000);

  it('R-SIGN, R-RH-TRANSFORM: the memo counts every change to what a delivery reads, and only those', async () => {
    const res = await t.call('POST', '/v1/endpoints', { url: `${base}/rev`, eventTypes: ['rev.*'] });
    expect(res.status, await res.clone().text()).toBe(201);
    const id = ((await res.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
    const handle = w.client.workflow.getHandle(id);
    const stampNow = async () => (await handle.query(endpointSnapshotQuery)).stamp;
    /** Whether an answer stamped `stamp` is still current by a describe. */
    const current = async (stamp: Awaited<ReturnType<typeof stampNow>>) => {
      return snapshotStillCurrent(await describeEntity(w.client, id), stamp, Date.now());
    };
    const first = await stampNow();
    expect(first).toMatchObject({ rev: 0 });
    expect((await handle.describe()).memo?.[SNAPSHOT_MEMO_KEY]).toBe(0);
    expect(await current(first)).toBe(true);
    // The view the API lists for a publish's fan-out carries the same stamp.
    expect((await handle.query(endpointViewQuery)).stamp).toEqual(first);

    // A successful delivery to a healthy endpoint changes nothing a reader holds.
    receiver.respondWith((_req, _i, res) => res.writeHead(200).end());
    try {
      const r = await t.call('POST', '/v1/events', { type: 'rev.ok', payload: {} });
      const delivery = ((await r.json()) as { deliveries: Array<{ id: string }> }).deliveries[0]!.id;
      await expect
        .poll(
          async () =>
            ((await (await t.call('GET', `/v1/deliveries/${delivery}`)).json()) as { status: string }).status,
          {
            timeout: 20_000,
          },
        )
        .toBe('succeeded');
    } finally {
      receiver.respondWith((_req, _i, res) => res.writeHead(500).end());
    }
    expect(await current(first)).toBe(true);

    // A description is in the view (not in what a delivery sends with): it counts too.
    expect((await t.call('PATCH', `/v1/endpoints/${id}`, { description: 'renamed' })).status).toBe(200);
    expect(await current(first)).toBe(false);
    const renamed = await stampNow();
    expect(await current(renamed)).toBe(true);

    // A new secret is: the held answer is no longer current, and the new one is stamped anew.
    expect((await t.call('POST', `/v1/endpoints/${id}/rotate-secret`)).status).toBe(200);
    expect(await current(renamed)).toBe(false);
    const rotated = await stampNow();
    expect(rotated?.rev).toBeGreaterThan(renamed!.rev);
    // The old secret signs through its grace period: the answer says when that ends.
    expect(rotated?.validUntil).toBeGreaterThan(Date.now());
    expect(await current(rotated)).toBe(true);

    // A transformation is read at send time (R-RH-TRANSFORM): a change to it counts too.
    expect(
      (
        await t.call('PATCH', `/v1/endpoints/${id}`, {
          transformation: '{ "wrapped": payload }',
        })
      ).status,
    ).toBe(200);
    expect(await current(rotated)).toBe(false);
    const transformed = await stampNow();
    expect(await current(transformed)).toBe(true);
    expect((await t.call('POST', `/v1/endpoints/${id}/pause`)).status).toBe(200);
    expect(await current(transformed)).toBe(false);

    // Tenants never see the stamp, in a read or in the list.
    for (const path of [`/v1/endpoints/${id}`, '/v1/endpoints']) {
      const body = await (await t.call('GET', path)).text();
      expect(body).toContain(id);
      expect(body).not.toContain('"stamp"');
    }

    // The cache a worker reads through: after its TTL, the new URL, by a query.
    const cache = new EndpointSnapshotCache(w.client, 300);
    expect((await cache.get(id)).url).toBe(`${base}/rev`);
    expect((await t.call('PATCH', `/v1/endpoints/${id}`, { url: `${base}/rev2` })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 350));
    expect((await cache.get(id)).url).toBe(`${base}/rev2`);
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { TEST_OPERATOR_KEY, type TenantSession } from '../helpers/api.js';
import { TwoWorkers } from '../helpers/two-workers.js';
import { busiestSecond } from '../helpers/flow-measure.js';

// Issue 17 (R-RH-DEFER "the organization's rate limit"): the operator limits a tenant; its
// sends to all its endpoints share one schedule, kept by the tenant workflow.
describe('issue 17: a tenant rate limit over 3 endpoints and two workers', () => {
  const EVENTS = 30;
  const RATE = 10;
  const env = new TwoWorkers();
  const { receiver } = env;
  let w: Awaited<ReturnType<TwoWorkers['start']>>['w'];
  let tenant: TenantSession;
  let app: ReturnType<typeof createApp>;
  let base: string;
  const admin = (path: string, body: unknown) =>
    app.request(path, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TEST_OPERATOR_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    ({ w, base, app, tenant } = await env.start());
  }, 180_000);
  afterAll(() => env.stop(), 120_000);

  // The start-up bunching this test saw (busiest second 12-14 against 11: a turn granted at
  // the tenant workflow's "now" carried no time, so the sender could not tell it had passed
  // by the time the answer arrived, and sent it next to the following turns) is gone since
  // every grant carries its time, at least the asker's last round trip ahead, and the schedule
  // paces with a margin (src/flow/limiter.ts). On the loaded 2-core machine: 3 runs in a row,
  // busiest second 10, 11, 11.
  it('R-RH-DEFER: 10/s over 3 endpoints: at most 10 + burst a second in total, none spent an attempt', async () => {
    const bad = await admin(`/v1/admin/tenants/${tenant.tenantId}/rate-limit`, { rateLimit: { perSecond: 0 } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_flow_option');
    const set = await admin(`/v1/admin/tenants/${tenant.tenantId}/rate-limit`, { rateLimit: { perSecond: RATE } });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { rateLimit?: unknown }).rateLimit).toEqual({ perSecond: RATE });
    for (const p of ['/a', '/b', '/c'])
      expect((await tenant.call('POST', '/v1/endpoints', { url: `${base}${p}`, eventTypes: ['t.event'] })).status).toBe(201);

    const run = Date.now();
    const started = Date.now();
    await Promise.all(
      Array.from({ length: EVENTS }, async (_, i) =>
        expect((await tenant.call('POST', '/v1/events', { id: `t_${i}_${run}`, type: 't.event', payload: { i } })).status).toBe(202),
      ),
    );
    const sent = async () => (await receiver.requests()).filter((r) => ['/a', '/b', '/c'].includes(r.path));
    await expect.poll(async () => (await sent()).length, { timeout: 90_000, interval: 500 }).toBeGreaterThanOrEqual(EVENTS * 3);
    const reqs = await sent();
    const busiest = busiestSecond(reqs.map((r) => r.at));
    const last = Math.max(...reqs.map((r) => r.at)) - started;
    console.log(`tenant 10/s over 3 endpoints: ${reqs.length} requests, busiest second ${busiest}, last after ${last} ms`);
    if (busiest > RATE + 1) {
      // What the workers saw: when each attempt started (after its turn) against its arrival.
      const rows = await Promise.all(
        reqs.map(async (r) => {
          const st = await w.client.workflow.getHandle(r.deliveryId).query(deliveryStateQuery);
          const a = st.attempts.find((x) => x.kind === 'attempt');
          return [r.at - started, a ? Date.parse(a.startedAt) - started : -1, st.attempts.length] as const;
        }),
      );
      console.log(rows.sort((x, y) => x[0] - y[0]).map((x) => x.join('/')).join(' '));
    }
    expect(busiest).toBeLessThanOrEqual(RATE + 1);
    // 90 sends at 10/s take at least 8.9 s: the limit was applied, not just met by chance.
    expect(last).toBeGreaterThanOrEqual(8_900);
    expect(new Set(reqs.map((r) => r.path))).toEqual(new Set(['/a', '/b', '/c']));

    const ids = [...new Set(reqs.map((r) => r.deliveryId))];
    expect(ids).toHaveLength(EVENTS * 3);
    const states = await Promise.all(ids.map((id) => w.client.workflow.getHandle(id).query(deliveryStateQuery)));
    expect(states.filter((s) => s.attemptsInRound !== 1).map((s) => s.deliveryId)).toEqual([]);
    const codes = new Set(states.flatMap((s) => s.attempts.filter((a) => a.kind === 'deferral').map((a) => a.code)));
    expect([...codes]).toEqual(['rate_limited']);

    // Removed: the tenant's view has no limit.
    const off = await admin(`/v1/admin/tenants/${tenant.tenantId}/rate-limit`, { rateLimit: null });
    expect(off.status).toBe(200);
    expect(((await off.json()) as { rateLimit?: unknown }).rateLimit).toBeUndefined();
  }, 240_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { HealthState } from '../../src/health/types.js';
import { HEALTH_MEMO_KEY, healthFromDescription } from '../../src/shared/health-memo.js';
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
});

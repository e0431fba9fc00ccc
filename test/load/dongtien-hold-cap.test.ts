import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { DT_HOLD_LIMIT } from '../../src/health/index.js';
import { endpointViewQuery } from '../../src/shared/endpoint-messages.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { countDeliveries, publishBound } from '../helpers/bound-deliveries.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

describe('Dong Tien hold cap on the dev server (R-DT-HEALTH)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  const receiver = new Receiver((_r, _i, res) => res.writeHead(503).end());
  let base: string;

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config }));
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it(`14.10 R-DT-HEALTH: past ${DT_HOLD_LIMIT.toLocaleString('en')} held events, the next one goes straight to the dead letters and the endpoint is disabled, everything held dead-lettered`, async () => {
    const created = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}/cap`,
      preset: 'dongtien',
      policy: { maxAttempts: 1 },
    });
    expect(created.status).toBe(201);
    const { endpoint } = (await created.json()) as { endpoint: { endpointId: string } };
    const handle = w.client.workflow.getHandle(endpoint.endpointId);

    // Five failures in a row suspend it.
    for (let i = 0; i < 5; i++) {
      const r = await tenant.call('POST', '/v1/events', { type: 'cap.test', payload: { i } });
      expect(r.status).toBe(202);
    }
    await expect
      .poll(async () => (await handle.query(endpointViewQuery)).health.status, { timeout: 30_000 })
      .toBe('suspended');
    await new Promise((r) => setTimeout(r, 1200)); // deliveries read the endpoint through a 1 s cache

    // Fill the hold to the limit (straight through Temporal, as a backend service may).
    const held = await publishBound(
      w.client,
      w.config.HERALD_TASK_QUEUE,
      endpoint.endpointId,
      'dongtien',
      DT_HOLD_LIMIT,
      {
        concurrency: 48,
        tag: 'h',
      },
    );
    // Let the worker catch up: the newest held delivery has recorded its deferral.
    const newest = w.client.workflow.getHandle(held[held.length - 1]!);
    await expect
      .poll(
        async () => (await newest.query(deliveryStateQuery)).attempts.some((a) => a.kind === 'deferral'),
        {
          timeout: 900_000,
          interval: 2000,
        },
      )
      .toBe(true);
    await expect
      .poll(() => countDeliveries(w.client, endpoint.endpointId, 'pending'), {
        timeout: 600_000,
        interval: 2000,
      })
      .toBeGreaterThanOrEqual(DT_HOLD_LIMIT);

    const over = await tenant.call('POST', '/v1/events', { type: 'cap.test', payload: { over: true } });
    expect(over.status).toBe(202);
    const { deliveries } = (await over.json()) as { deliveries: Array<{ id: string }> };
    const dh = w.client.workflow.getHandle(deliveries[0]!.id);
    // The worker may still be working through the ten thousand held deliveries' first
    // tasks, so the event's fan-out can take a while to start this one.
    await expect
      .poll(async () => (await dh.query(deliveryStateQuery)).status, { timeout: 120_000, interval: 1000 })
      .toBe('exhausted');
    const s = await dh.query(deliveryStateQuery);
    expect(s.lastCode).toMatch(/^hold_overflow/);
    expect(s.attempts.filter((a) => a.kind === 'attempt')).toHaveLength(0);
    // Issue 14.10 (seed, not SPEC §5's reading): the overflow disables the endpoint, and
    // everything it held goes to the dead letters; nothing held was sent.
    await expect
      .poll(async () => (await handle.query(endpointViewQuery)).health, { timeout: 60_000, interval: 1000 })
      .toMatchObject({ status: 'disabled', reason: 'hold_full' });
    await expect
      .poll(() => countDeliveries(w.client, endpoint.endpointId, 'pending'), { timeout: 600_000, interval: 2000 })
      .toBe(0);
    const heldEnd = await newest.query(deliveryStateQuery);
    expect(heldEnd).toMatchObject({ status: 'exhausted', lastCode: 'endpoint_disabled', attemptsInRound: 0 });
    expect(receiver.requests).toHaveLength(5);
  }, 1_500_000);
});

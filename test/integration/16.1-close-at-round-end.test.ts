import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { DeliveryState } from '../../src/shared/delivery-types.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

const { EventType } = temporal.api.enums.v1;

// Issue 16 item 1: a delivery closes when its round ends (no run held open for the replay
// window, no 30-day timer); a dead-letter retry starts a new run of the same id from the
// closed run's result, and the delivery reads as one (same id, same attempt log).
describe('issue 16: a delivery closes when its round ends', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  let failing = true;
  const receiver = new Receiver((req, _i, res) => {
    if (req.path === '/flaky' && failing) res.writeHead(500).end('down');
    else res.writeHead(200).end('ok');
  });
  let base: string;
  const endpoints: Record<string, string> = {};

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    const app = createApp({ client: w.client, config: w.config });
    tenant = await newTenant(app);
    for (const [path, type, preset, policy] of [
      ['/ok', 'close.ok', undefined, undefined],
      // Railhook keeps dead letters per delivery (its endpoint stays enabled).
      ['/flaky', 'close.flaky', 'railhook', { maxAttempts: 1 }],
    ] as const) {
      const res = await tenant.call('POST', '/v1/endpoints', { url: `${base}${path}`, eventTypes: [type], preset, policy });
      expect(res.status).toBe(201);
      endpoints[type] = ((await res.json()) as { id: string }).id;
    }
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  const publish = async (type: string) => {
    const res = await tenant.call('POST', '/v1/events', { id: `${type}_${Date.now()}`, type, payload: {} });
    expect(res.status).toBe(202);
    return ((await res.json()) as { deliveries: Array<{ id: string }> }).deliveries[0]!.id;
  };
  const events = async (id: string, runId?: string) =>
    ((await w.client.workflow.getHandle(id, runId).fetchHistory()).events ?? []).map((e) => EventType[e.eventType ?? 0]!);

  it('R-STATUS: a successful delivery is closed at once, with no timer, and GET /v1/deliveries/{id} still shows its attempt log', async () => {
    const id = await publish('close.ok');
    const result = (await w.client.workflow.getHandle(id).result()) as DeliveryState;
    expect(result.status).toBe('succeeded');
    expect((await w.client.workflow.getHandle(id).describe()).status.name).toBe('COMPLETED');
    expect(await events(id)).not.toContain('EVENT_TYPE_TIMER_STARTED');
    const res = await tenant.call('GET', `/v1/deliveries/${id}`);
    expect(res.status).toBe(200);
    const d = (await res.json()) as { status: string; attempts: Array<{ kind: string; httpStatus?: number }> };
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a) => [a.kind, a.httpStatus])).toEqual([['attempt', 200]]);
  });

  it('R-RH-DLQ: a dead letter is closed; its retry is a new run of the same id that continues the attempt log', async () => {
    failing = true;
    const id = await publish('close.flaky');
    const first = (await w.client.workflow.getHandle(id).result()) as DeliveryState;
    expect(first.status).toBe('exhausted');
    const closed = await w.client.workflow.getHandle(id).describe();
    expect(closed.status.name).toBe('COMPLETED');

    failing = false;
    const retry = await tenant.call('POST', `/v1/dead-letters/${id}/retry`);
    expect(retry.status).toBe(202);
    const handle = w.client.workflow.getHandle(id);
    await expect.poll(async () => (await handle.describe()).runId, { timeout: 10_000 }).not.toBe(closed.runId);
    const second = (await handle.result()) as DeliveryState;
    expect(second.status, JSON.stringify(second)).toBe('succeeded');
    expect(second.deliveryId).toBe(id);
    expect(second.attempts.map((a) => [a.kind, a.attempt, a.httpStatus])).toEqual([
      ['attempt', 1, 500],
      ['attempt', 2, 200],
    ]);
    // Both runs reached the receiver under the same delivery id (Idempotency-Key).
    const flaky = receiver.requests.filter((r) => r.path === '/flaky');
    expect(flaky.map((r) => r.headers['idempotency-key'])).toEqual([id, id]);
    const res = await tenant.call('GET', `/v1/deliveries/${id}`);
    expect(res.status).toBe(200);
    const d = (await res.json()) as { status: string; attempts: unknown[] };
    expect(d.status).toBe('succeeded');
    expect(d.attempts).toHaveLength(2);
  });
});

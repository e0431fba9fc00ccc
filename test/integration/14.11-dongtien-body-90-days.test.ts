// Issue 14.11 (R-DT-REPLAY, SPEC §3 "log / body retention": Dong Tien "log 30d, bodies
// 90d"): the event record (`eventWorkflow`) closes at once, so Temporal deletes it after the
// namespace retention, while a Dong Tien delivery can be replayed 90 days (since issue 16 it
// closes at its round end and is reopened as a new run; the 90 days are the API's rule). A
// body read must not depend on the record: it comes from the delivery itself.
//
// On the dev server the record is deleted the way retention deletes it
// (DeleteWorkflowExecution). On the time-skipping server (which implements neither delete
// nor visibility) the delivery is started without any record, the state retention leaves,
// and 89 then 91 days pass.
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { eventWorkflowId } from '../../src/shared/ids.js';
import { startDelivery } from '../../src/deliveries/start-delivery.js';
import { startEndpoint } from '../../src/endpoints/start-endpoint.js';
import { resolvePolicy } from '../../src/policy/policy.js';
import type { DeliveryInput } from '../../src/shared/delivery-types.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { dataConverterFor } from '../../src/temporal/data-converter.js';
import { createHeraldWorker } from '../../src/worker.js';
import { jsonOf as json, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';
import { testConfig, timeSkippingEnv, workflowBundle } from '../helpers/temporal.js';

const DAY = 86_400_000;

type Delivery = { id: string; eventId: string; status: string; round: number; body?: string };
type Problem = { status: number; code: string; detail?: string };

describe('14.11 R-DT-REPLAY: a Dong Tien body outlives the event record (dev server)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  let base = '';
  const receiver = new Receiver();

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('14.11 R-DT-REPLAY: after retention deletes the event record, GET /v1/deliveries/{id} and GET /v1/events/{id} still show the body, and a replay resends it with the same webhook-id', async () => {
    const t: TenantSession = await newTenant(app, 'Dong Tien Pro');
    await json<{ endpoint: { endpointId: string } }>(
      t.call('POST', '/v1/endpoints', { url: `${base}/dt`, preset: 'dongtien', eventTypes: ['don_hang.*'] }),
      201,
    );
    // A paused endpoint the event skips: such an event keeps a record workflow to lose (issue 16 (4)).
    const paused = await json<{ endpoint: { endpointId: string } }>(
      t.call('POST', '/v1/endpoints', { url: `${base}/paused`, preset: 'smengo', eventTypes: ['don_hang.*'] }),
      201,
    );
    await json(t.call('POST', `/v1/endpoints/${paused.endpoint.endpointId}/pause`), 200);
    const payload = { donHang: 'DH-1411', tong: 250_000, ghiChu: 'giao hàng nhanh' };
    const published = await json<{ eventId: string; deliveries: Array<{ id: string }>; skipped: unknown[] }>(
      t.call('POST', '/v1/events', { id: 'DH-1411', type: 'don_hang.tao', payload }),
      202,
    );
    expect(published.deliveries).toHaveLength(1);
    expect(published.skipped).toHaveLength(1);
    const id = published.deliveries[0]!.id;
    await expect
      .poll(async () => (await json<Delivery>(t.call('GET', `/v1/deliveries/${id}`), 200)).status, {
        timeout: 30_000,
        interval: 300,
      })
      .toBe('succeeded');
    expect(receiver.requests).toHaveLength(1);
    const first = receiver.requests[0]!;

    // What retention does to the record 30 days after it closed.
    const record = w.client.workflow.getHandle(eventWorkflowId(t.tenantId, published.eventId));
    expect((await record.describe()).status.name).toBe('COMPLETED');
    await w.client.workflowService.deleteWorkflowExecution({
      namespace: w.client.options.namespace,
      workflowExecution: { workflowId: record.workflowId },
    });
    await expect
      .poll(
        async () =>
          record.describe().then(
            () => 'present',
            () => 'gone',
          ),
        // The server deletes in a background task: slow on a busy dev server.
        { timeout: 120_000, interval: 500 },
      )
      .toBe('gone');

    // The delivery log still shows the exact body that was sent. Reading it adds nothing
    // to the delivery's history (the body is its start event's input, already there).
    const delivery = w.client.workflow.getHandle(id);
    const historyBefore = (await delivery.describe()).historyLength;
    const d = await json<Delivery>(t.call('GET', `/v1/deliveries/${id}`), 200);
    expect(d.body).toBe(first.body);
    expect(JSON.parse(d.body!)).toMatchObject({ type: 'don_hang.tao', data: payload });

    // The events API reads the event back from its delivery.
    const ev = await json<{
      eventId: string;
      type: string;
      payload: unknown;
      deliveries: Array<{ id: string }>;
    }>(t.call('GET', `/v1/events/${published.eventId}`), 200);
    expect(ev).toMatchObject({ eventId: published.eventId, type: 'don_hang.tao', payload });
    expect(ev.deliveries.map((x) => x.id)).toEqual([id]);
    // Another tenant still cannot read it.
    const other = await newTenant(app, 'Other');
    await json<Problem>(other.call('GET', `/v1/events/${published.eventId}`), 404);

    // Reads of the body and the event added no history event to the delivery.
    expect((await delivery.describe()).historyLength).toBe(historyBefore);

    // Replay: a new round, same webhook-id, byte-identical body.
    const replayed = await json<Delivery>(t.call('POST', `/v1/replay/deliveries/${id}`), 202);
    expect(replayed.round).toBe(2);
    await receiver.waitFor(2);
    const again = receiver.requests[1]!;
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(again.body).toBe(first.body);
  }, 240_000);
});

describe('14.11 R-DT-REPLAY: 90 days of body and replay, then a clear refusal (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let client: Client;
  let app: ReturnType<typeof createApp>;
  let stopWorker: () => Promise<void>;
  let base = '';
  const receiver = new Receiver();
  const config = testConfig();
  let serverNow = Date.now();
  const sleep = async (ms: number) => {
    await env.sleep(ms);
    serverNow = await env.currentTimeMs();
  };

  beforeAll(async () => {
    [env, base] = await Promise.all([timeSkippingEnv(), receiver.start()]);
    // The worker encrypts payloads (HERALD_CODEC_KEYS); the API's client must read them.
    client = new Client({
      connection: env.connection,
      namespace: env.namespace ?? 'default',
      dataConverter: dataConverterFor(config),
    });
    const { worker, close } = await createHeraldWorker({
      connection: env.nativeConnection,
      config,
      client,
      workflowBundle: workflowBundle(),
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
      await close();
    };
    // Issue 16: the delivery has closed at its round end, so the 90 days are the API's rule,
    // judged on the server's (skipped) clock, as a real API judges them on the real one.
    app = createApp({ client, config, now: () => serverNow });
  });
  afterAll(async () => {
    await stopWorker?.();
    await receiver.stop();
    await env?.teardown();
  });

  it('14.11 R-DT-REPLAY: with no event record left, at 89 days the body is readable and the replay sends it; past 90 days the replay is refused with replay_window_expired naming the 90 days', async () => {
    const t = await newTenant(app, 'Dong Tien Pro');
    const now = await env.currentTimeMs();
    const endpointId = `ep_dt1411${Math.random().toString(36).slice(2, 8)}`;
    await startEndpoint(client, config.HERALD_TASK_QUEUE, {
      endpointId,
      tenantId: t.tenantId,
      config: { url: `${base}/dt`, preset: 'dongtien', createdBy: 'owner@dongtien.test' },
      secrets: [{ secret: generateSecret(), createdAt: now }],
      createdAt: now,
    });
    const createdAt = new Date(now).toISOString();
    const body = JSON.stringify({ type: 'don_hang.tao', timestamp: createdAt, data: { donHang: 'DH-90' } });
    const input: DeliveryInput = {
      deliveryId: `dlv_dt1411_${Math.random().toString(36).slice(2, 10)}`,
      tenantId: t.tenantId,
      endpointId,
      event: { id: 'msg_dt1411', type: 'don_hang.tao', occurredAt: createdAt, body },
      policy: resolvePolicy('dongtien'),
      createdAt,
    };
    // Started as the API starts it, but no event record: what retention leaves after 30 days.
    await startDelivery(client, config.HERALD_TASK_QUEUE, input);
    const get = () => json<Delivery>(t.call('GET', `/v1/deliveries/${input.deliveryId}`), 200);
    for (let i = 0; i < 60 && (await get()).status !== 'succeeded'; i++) await sleep(1000);
    expect((await get()).status).toBe('succeeded');
    expect(receiver.requests).toHaveLength(1);

    await sleep(89 * DAY);
    const at89 = await get();
    expect(at89.body).toBe(body);
    const replayed = await json<Delivery>(t.call('POST', `/v1/replay/deliveries/${input.deliveryId}`), 202);
    expect(replayed.round).toBe(2);
    for (let i = 0; i < 60 && receiver.requests.length < 2; i++) await sleep(1000);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.body).toBe(body);
    expect(receiver.requests[1]!.headers['webhook-id']).toBe('msg_dt1411');

    // Past 90 days from the event the delivery's replay window has closed.
    await sleep(2 * DAY);
    const refused = await json<Problem>(t.call('POST', `/v1/replay/deliveries/${input.deliveryId}`), 410);
    expect(refused.code).toBe('replay_window_expired');
    expect(refused.detail).toMatch(/90 days/);
    expect(receiver.requests).toHaveLength(2);
  });
});

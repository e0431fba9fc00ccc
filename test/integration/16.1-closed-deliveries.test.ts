// Issue 16, the read and reopen side: a delivery closes when its round ends, and every read
// (detail, lists by status, dead letters, the endpoint's attempts, the event read back)
// still shows it; a dead-letter retry or a replay reopens it as a new run of the same
// workflow id, continuing its attempt log and webhook-id. Dev server, real receivers on
// loopback.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { startDelivery } from '../../src/deliveries/start-delivery.js';
import { temporalDeadLetterStore } from '../../src/store/dead-letters.js';
import { resolvePolicy } from '../../src/policy/policy.js';
import type { DeliveryInput } from '../../src/shared/delivery-types.js';
import { eventWorkflowId } from '../../src/shared/ids.js';
import { jsonOf as json, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

const DAY = 86_400_000;

type Attempt = { kind: string; attempt: number; round: number; code?: string; replay?: boolean };
type Delivery = {
  id: string;
  endpointId: string;
  eventId: string;
  status: string;
  createdAt: string;
  round: number;
  attemptBudget: number;
  attemptCount: number;
  body?: string;
  attempts: Attempt[];
};
type Row = { id: string; status: string; createdAt: string };
type Problem = { status: number; code: string; detail?: string };

describe('16.1: closed deliveries stay readable and reopen as a new run (dev server)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  let base = '';
  const receiver = new Receiver();
  /** Status per receiver path (default 200). */
  const statusFor = new Map<string, number>();

  const endpoint = async (t: TenantSession, path: string, preset: string, policy?: object) =>
    (
      await json<{ endpoint: { endpointId: string } }>(
        t.call('POST', '/v1/endpoints', {
          url: `${base}${path}`,
          preset,
          eventTypes: ['order.*'],
          ...(policy ? { policy } : {}),
        }),
        201,
      )
    ).endpoint.endpointId;
  /** `id`: the publisher names the event, so it has a record workflow (issue 16 (4)). */
  const publish = async (t: TenantSession, payload: unknown, id?: string) => {
    const r = await json<{ eventId: string; deliveries: Array<{ id: string }> }>(
      t.call('POST', '/v1/events', { type: 'order.created', payload, ...(id ? { id } : {}) }),
      202,
    );
    expect(r.deliveries).toHaveLength(1);
    return { eventId: r.eventId, id: r.deliveries[0]!.id };
  };
  const get = (t: TenantSession, id: string) => json<Delivery>(t.call('GET', `/v1/deliveries/${id}`), 200);
  /** The delivery's runs as visibility lists them. */
  const runs = async (id: string) => {
    const out: Array<{ runId: string; status: string }> = [];
    for await (const wf of w.client.workflow.list({ query: `WorkflowId = '${id}'` }))
      out.push({ runId: wf.runId, status: wf.status.name });
    return out;
  };
  /** Waits until the delivery's latest run has closed (its round ended). */
  const closed = async (id: string) =>
    expect
      .poll(async () => (await w.client.workflow.getHandle(id).describe()).status.name, {
        timeout: 60_000,
        interval: 300,
      })
      .toBe('COMPLETED');
  const rows = async (t: TenantSession, q: string) =>
    (await json<{ data: Row[] }>(t.call('GET', `/v1/deliveries?${q}`), 200)).data;
  const sentTo = (path: string) => receiver.requests.filter((r) => r.path === path);

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
    receiver.respondWith((req, _i, res) => {
      const status = statusFor.get(req.path) ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? 'boom' : 'ok');
    });
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('16.1 R-LOG: a succeeded delivery is closed and still fully readable: detail, status=succeeded, the endpoint’s attempts, the event read back', async () => {
    const t = await newTenant(app);
    const ep = await endpoint(t, '/ok', 'standard');
    const { id, eventId } = await publish(t, { n: 'read' }, 'read-1');
    await closed(id);

    const d = await get(t, id);
    expect(d).toMatchObject({ id, status: 'succeeded', attemptCount: 1, round: 1 });
    expect(JSON.parse(d.body!)).toMatchObject({ data: { n: 'read' } });
    await expect
      .poll(async () => (await rows(t, 'status=succeeded')).map((r) => r.id), { timeout: 15_000 })
      .toEqual([id]);
    expect(await rows(t, 'status=pending')).toEqual([]);
    expect((await rows(t, '')).map((r) => [r.id, r.status])).toEqual([[id, 'succeeded']]);

    const attempts = await json<{ data: Array<{ deliveryId: string; result: string }> }>(
      t.call('GET', `/v1/endpoints/${ep}/attempts`),
      200,
    );
    expect(attempts.data.map((a) => [a.deliveryId, a.result])).toEqual([[id, 'succeeded']]);
    const recent = await json<{ data: Delivery[] }>(t.call('GET', '/v1/deliveries/recent'), 200);
    expect(recent.data.map((r) => [r.id, r.status])).toEqual([[id, 'succeeded']]);

    // The event read back from its closed delivery once its record is gone (retention).
    await w.client.workflowService.deleteWorkflowExecution({
      namespace: w.client.options.namespace,
      workflowExecution: { workflowId: eventWorkflowId(t.tenantId, eventId) },
    });
    await expect
      .poll(async () => (await t.call('GET', `/v1/events/${eventId}`)).status, {
        timeout: 30_000,
        interval: 500,
      })
      .toBe(200);
    const ev = await json<{ payload: unknown; deliveries: Array<{ id: string }> }>(
      t.call('GET', `/v1/events/${eventId}`),
      200,
    );
    expect(ev.payload).toEqual({ n: 'read' });
    expect(ev.deliveries.map((x) => x.id)).toEqual([id]);
  });

  it('16.1 R-RH-DLQ: an exhausted delivery is closed and listed as a dead letter; its retry is a new run of the same id that continues the log and the webhook-id, and succeeds', async () => {
    const t = await newTenant(app);
    statusFor.set('/dlq', 500);
    await endpoint(t, '/dlq', 'railhook', { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 });
    const { id } = await publish(t, { n: 'dlq' });
    await closed(id);
    expect((await get(t, id)).status).toBe('exhausted');
    const deadLetters = async () =>
      (
        await json<{ data: Array<{ id: string; retryable: boolean }> }>(
          t.call('GET', '/v1/dead-letters'),
          200,
        )
      ).data;
    await expect
      .poll(deadLetters, { timeout: 15_000 })
      .toEqual([expect.objectContaining({ id, retryable: true })]);
    expect((await rows(t, 'status=exhausted')).map((r) => r.id)).toEqual([id]);

    statusFor.set('/dlq', 200);
    const retried = await json<Delivery>(t.call('POST', `/v1/dead-letters/${id}/retry`), 202);
    expect(retried).toMatchObject({ id, status: 'pending', attemptBudget: 4 });
    await expect
      .poll(async () => (await get(t, id)).status, { timeout: 60_000, interval: 300 })
      .toBe('succeeded');
    await closed(id);

    const d = await get(t, id);
    // One log across both runs: the failed attempt, then the retry's success.
    expect(d.attempts.map((a) => [a.attempt, a.code ?? 'ok'])).toEqual([
      [2, 'ok'],
      [1, 'http_500'],
    ]);
    expect(await runs(id)).toHaveLength(2);
    const sent = sentTo('/dlq');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers['webhook-id']).toBe(sent[0]!.headers['webhook-id']);
    // The first run's row (exhausted) no longer stands for the delivery.
    await expect.poll(deadLetters, { timeout: 15_000 }).toEqual([]);
    await expect
      .poll(async () => (await rows(t, 'status=exhausted')).map((r) => r.id), { timeout: 15_000 })
      .toEqual([]);
    expect((await rows(t, '')).map((r) => [r.id, r.status])).toEqual([[id, 'succeeded']]);
  });

  it('16.1 R-RH-DLQ: two retries of one dead letter at once start exactly one new run; the other is refused not_a_dead_letter', async () => {
    const t = await newTenant(app);
    statusFor.set('/twice', 500);
    await endpoint(t, '/twice', 'railhook', { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 });
    const { id } = await publish(t, { n: 'twice' });
    await closed(id);
    const answers = await Promise.all([
      t.call('POST', `/v1/dead-letters/${id}/retry`),
      t.call('POST', `/v1/dead-letters/${id}/retry`),
    ]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 409]);
    const refused = (await answers.find((r) => r.status === 409)!.json()) as Problem;
    expect(refused.code).toBe('not_a_dead_letter');
    // The list is visibility's, which shows a new run a moment after its start.
    await expect.poll(async () => (await runs(id)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(await runs(id)).toHaveLength(2);
  });

  it('16.1 R-RH-DLQ R-LOG: a retry that read the dead letter before another retry started, and starts only after that retry’s run has succeeded and closed, starts no third run and sends nothing again', async () => {
    const t = await newTenant(app);
    statusFor.set('/late', 500);
    await endpoint(t, '/late', 'railhook', { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 });
    const { id } = await publish(t, { n: 'late' });
    await closed(id);
    // The second retry's reads, made while the dead letter was still the latest run.
    const staleRef = (await temporalDeadLetterStore(w.client).ownedDelivery(t.tenantId, id))!;
    expect(staleRef).toMatchObject({ id, running: false });
    const staleRead = await w.client.workflow.getHandle(id).describe();

    statusFor.set('/late', 200);
    await json<Delivery>(t.call('POST', `/v1/dead-letters/${id}/retry`), 202);
    await expect
      .poll(async () => (await get(t, id)).status, { timeout: 60_000, interval: 300 })
      .toBe('succeeded');
    await closed(id);
    expect(sentTo('/late')).toHaveLength(2);

    // The second retry goes on from its read: the same client, except that the latest run it
    // describes is the one it saw before the first retry started.
    const latestAsRead = new Proxy(w.client.workflow, {
      get(target, prop, receiver) {
        if (prop !== 'getHandle') return Reflect.get(target, prop, receiver) as unknown;
        return (wid: string, runId?: string) => {
          const handle = target.getHandle(wid, runId);
          if (wid !== id || runId !== undefined) return handle;
          return new Proxy(handle, {
            get: (h, p, r) =>
              p === 'describe' ? () => Promise.resolve(staleRead) : (Reflect.get(h, p, r) as unknown),
          });
        };
      },
    });
    const client = new Proxy(w.client, {
      get: (c, p, r) => (p === 'workflow' ? latestAsRead : (Reflect.get(c, p, r) as unknown)),
    });
    const second = await temporalDeadLetterStore(client).retryDeadLetter(staleRef);
    expect(second).toEqual({ ok: false, reason: 'not_a_dead_letter' });

    await delay(2_000);
    expect(await runs(id)).toHaveLength(2);
    expect(sentTo('/late')).toHaveLength(2);
    expect((await get(t, id)).attempts.map((a) => [a.attempt, a.code ?? 'ok'])).toEqual([
      [2, 'ok'],
      [1, 'http_500'],
    ]);
  });

  it('16.1 R-DT-REPLAY: a closed Dong Tien delivery replays as a new round of the same id (same webhook-id); a closed Bird one by window replay, one attempt', async () => {
    const t = await newTenant(app, 'Dong Tien Pro');
    await endpoint(t, '/dt', 'dongtien');
    const { id } = await publish(t, { n: 'dt' });
    await closed(id);
    const replayed = await json<Delivery>(t.call('POST', `/v1/replay/deliveries/${id}`), 202);
    expect(replayed).toMatchObject({ id, status: 'pending', round: 2 });
    await expect.poll(() => sentTo('/dt').length, { timeout: 60_000 }).toBe(2);
    await closed(id);
    const d = await get(t, id);
    expect(d).toMatchObject({ status: 'succeeded', round: 2, attemptCount: 2 });
    expect(d.attempts.map((a) => a.round)).toEqual([2, 1]);
    const [a, b] = sentTo('/dt');
    expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id']);
    expect(b!.body).toBe(a!.body);

    const bt = await newTenant(app, 'Bird');
    statusFor.set('/bird', 500);
    await endpoint(bt, '/bird', 'bird', { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 });
    const bd = await publish(bt, { n: 'bird' });
    await closed(bd.id);
    statusFor.set('/bird', 200);
    const epId = (await get(bt, bd.id)).endpointId;
    const r = await bt.call('POST', '/v1/replay/window', { endpointId: epId });
    expect(r.status).toBe(202);
    await expect
      .poll(async () => (await get(bt, bd.id)).status, { timeout: 60_000, interval: 500 })
      .toBe('succeeded');
    const bird = await get(bt, bd.id);
    expect(bird.attempts[0]).toMatchObject({ round: 2, replay: true });
    expect(sentTo('/bird')).toHaveLength(2);
    expect(sentTo('/bird')[1]!.headers['webhook-id']).toBe(sentTo('/bird')[0]!.headers['webhook-id']);
  });

  it('16.1 R-DT-REPLAY: a closed delivery whose event is older than 90 days is refused replay_window_expired; its createdAt stays its creation', async () => {
    const t = await newTenant(app, 'Dong Tien Pro');
    const ep = await endpoint(t, '/old', 'dongtien');
    // Started as the API starts it, created 91 days ago (no waiting for days).
    const createdAt = new Date(Date.now() - 91 * DAY).toISOString();
    const input: DeliveryInput = {
      deliveryId: `dlv_old16_${Math.random().toString(36).slice(2, 10)}`,
      tenantId: t.tenantId,
      endpointId: ep,
      event: {
        id: 'msg_old16',
        type: 'order.created',
        occurredAt: createdAt,
        body: JSON.stringify({ type: 'order.created', timestamp: createdAt, data: {} }),
      },
      policy: resolvePolicy('dongtien'),
      createdAt,
      closesAtRoundEnd: true,
    };
    await startDelivery(w.client, w.config.HERALD_TASK_QUEUE, input);
    await closed(input.deliveryId);
    const refused = await json<Problem>(t.call('POST', `/v1/replay/deliveries/${input.deliveryId}`), 410);
    expect(refused.code).toBe('replay_window_expired');
    expect(refused.detail).toMatch(/90 days/);
    expect(sentTo('/old')).toHaveLength(1);
    expect((await get(t, input.deliveryId)).createdAt).toBe(createdAt);
  });

  it('16 R-LOG: a reopened delivery keeps its createdAt, and newest first stays by creation', async () => {
    const t = await newTenant(app);
    statusFor.set('/order', 500);
    await endpoint(t, '/order', 'railhook', { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 });
    const older = await publish(t, { n: 1 });
    await closed(older.id);
    await delay(1100);
    statusFor.set('/order', 200);
    const newer = await publish(t, { n: 2 });
    await closed(newer.id);
    const before = (await get(t, older.id)).createdAt;
    await json<Delivery>(t.call('POST', `/v1/dead-letters/${older.id}/retry`), 202);
    await expect
      .poll(async () => (await get(t, older.id)).status, { timeout: 60_000, interval: 300 })
      .toBe('succeeded');
    expect((await get(t, older.id)).createdAt).toBe(before);
    await expect
      .poll(async () => (await rows(t, '')).map((r) => [r.id, r.createdAt]), { timeout: 15_000 })
      .toEqual([
        [newer.id, (await get(t, newer.id)).createdAt],
        [older.id, before],
      ]);
    // A window on creation still finds it, however late its latest run started.
    const until = new Date(Date.parse(before) + 500).toISOString();
    expect((await rows(t, `until=${encodeURIComponent(until)}`)).map((r) => r.id)).toEqual([older.id]);
  });
});

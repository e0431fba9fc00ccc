import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { REPLAY_WINDOW_WORKFLOW } from '../../src/shared/names.js';
import { jsonOf as json, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver, type ReceivedRequest } from '../helpers/receiver.js';

type Attempt = {
  kind: string;
  attempt: number;
  round: number;
  startedAt: string;
  latencyMs: number;
  httpStatus?: number;
  code?: string;
  responseBody?: string;
  replay?: boolean;
};
type Delivery = {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: string;
  createdAt: string;
  round: number;
  attemptBudget: number;
  attemptCount: number;
  responseCode: number | null;
  nextAttemptAt?: string;
  body?: string;
  attempts: Attempt[];
};
type Problem = { code: string; status: number };

describe('recovery API on the dev server: delivery log, dead letters, replay', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  const receiver = new Receiver();
  let base: string;
  /** Status per receiver path; `/bird` answers by event type instead. */
  const statusFor = new Map<string, number>();

  const sent = (path: string, pred: (r: ReceivedRequest) => boolean = () => true) =>
    receiver.requests.filter((r) => r.path === path && pred(r)).length;

  const createEndpoint = async (
    tenant: TenantSession,
    path: string,
    preset: string,
    eventTypes: string[],
    policy: { maxAttempts: number; retryDelays: number[]; timeoutSeconds: number },
  ) => {
    const { endpoint } = await json<{ endpoint: { endpointId: string } }>(
      tenant.call('POST', '/v1/endpoints', { url: `${base}${path}`, preset, eventTypes, policy }),
      201,
    );
    return endpoint.endpointId;
  };
  const publish = async (tenant: TenantSession, type: string, payload: unknown) => {
    const r = await json<{ eventId: string; deliveries: Array<{ id: string }> }>(
      tenant.call('POST', '/v1/events', { type, payload }),
      202,
    );
    expect(r.deliveries).toHaveLength(1);
    return r.deliveries[0]!.id;
  };
  const getDelivery = (tenant: TenantSession, id: string) =>
    json<Delivery>(tenant.call('GET', `/v1/deliveries/${id}`), 200);
  const statusOf = async (tenant: TenantSession, id: string) => (await getDelivery(tenant, id)).status;

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
    receiver.respondWith((req, _i, res) => {
      if (req.path === '/bird') {
        const type = (JSON.parse(req.body) as { type: string }).type;
        return res.writeHead(type === 'bird.ok' ? 200 : 500).end(type === 'bird.ok' ? 'ok' : 'boom');
      }
      const status = statusFor.get(req.path) ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? 'boom' : 'ok');
    });
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('R-LOG R-RESP R-RH-DLQ R-DT-REPLAY: attempts newest first, dead letter, retry (+3), replay one (409 while pending), grouped bulk replay', async () => {
    const tenant = await newTenant(app);
    const other = await newTenant(app, 'Other');
    statusFor.set('/rh', 500);
    const rh = await createEndpoint(tenant, '/rh', 'railhook', ['flow.*'], {
      maxAttempts: 2,
      retryDelays: [1],
      timeoutSeconds: 5,
    });

    // --- the log: a failing delivery becomes a dead letter --------------------------------
    const id = await publish(tenant, 'flow.created', { n: 1 });
    type DeadLetter = {
      id: string;
      endpointId: string;
      eventType: string;
      attemptCount: number;
      lastError: string | null;
      retryable: boolean;
    };
    const deadLetters = async () =>
      (await json<{ data: DeadLetter[] }>(tenant.call('GET', '/v1/dead-letters'), 200)).data;
    await expect
      .poll(async () => (await deadLetters()).map((d) => d.id), { timeout: 60_000, interval: 500 })
      .toContain(id);
    expect((await deadLetters()).find((d) => d.id === id)).toMatchObject({
      endpointId: rh,
      eventType: 'flow.created',
      attemptCount: 2,
      lastError: 'http_500',
      retryable: true,
    });

    const d = await getDelivery(tenant, id);
    expect(d).toMatchObject({
      status: 'exhausted',
      endpointId: rh,
      eventType: 'flow.created',
      attemptCount: 2,
      responseCode: 500,
    });
    expect(JSON.parse(d.body!)).toMatchObject({ type: 'flow.created', data: { n: 1 } });
    expect(d.attempts.map((a) => a.attempt)).toEqual([2, 1]);
    expect(Date.parse(d.attempts[0]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(d.attempts[1]!.startedAt));
    for (const a of d.attempts) {
      expect(a).toMatchObject({ kind: 'attempt', httpStatus: 500, code: 'http_500', responseBody: 'boom' });
      expect(a.latencyMs).toBeTypeOf('number');
    }

    // Filters over visibility; another tenant sees nothing of it.
    const filtered = await json<{ data: Array<{ id: string; status: string }> }>(
      tenant.call('GET', `/v1/deliveries?endpointId=${rh}&status=exhausted&eventType=flow.created&limit=10`),
      200,
    );
    expect(filtered.data).toEqual([expect.objectContaining({ id, status: 'exhausted' })]);
    expect((await json<Problem>(other.call('GET', `/v1/deliveries/${id}`), 404)).code).toBe(
      'delivery_not_found',
    );
    expect((await json<Problem>(other.call('POST', `/v1/dead-letters/${id}/retry`), 404)).code).toBe(
      'delivery_not_found',
    );
    expect((await json<{ data: unknown[] }>(other.call('GET', '/v1/deliveries'), 200)).data).toEqual([]);
    expect((await json<Problem>(tenant.call('GET', '/v1/deliveries/dlv_doesNotExist'), 404)).code).toBe(
      'delivery_not_found',
    );
    expect((await json<Problem>(tenant.call('GET', '/v1/deliveries/nope'), 400)).code).toBe(
      'validation_failed',
    );

    // --- dead-letter retry: same delivery, 3 more attempts, first one at once -------------
    statusFor.set('/rh', 200);
    const retried = await json<Delivery>(tenant.call('POST', `/v1/dead-letters/${id}/retry`), 202);
    expect(retried).toMatchObject({ id, status: 'pending', attemptBudget: 5 });
    await expect.poll(() => statusOf(tenant, id), { timeout: 30_000 }).toBe('succeeded');
    const after = await getDelivery(tenant, id);
    expect(after.attempts.map((a) => a.httpStatus)).toEqual([200, 500, 500]);
    expect(after.attemptBudget).toBe(5);
    const rhRequests = receiver.requests.filter((r) => r.path === '/rh');
    expect(rhRequests).toHaveLength(3);
    expect(new Set(rhRequests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(rhRequests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect((await json<Problem>(tenant.call('POST', `/v1/dead-letters/${id}/retry`), 409)).code).toBe(
      'not_a_dead_letter',
    );
    const bulk = await json<{ retried: string[]; failed: Array<{ id: string; code: string }> }>(
      tenant.call('POST', '/v1/dead-letters/retry', { ids: [id, 'dlv_unknown'] }),
      202,
    );
    expect(bulk.retried).toEqual([]);
    expect(bulk.failed).toEqual(
      expect.arrayContaining([
        { id, code: 'not_a_dead_letter' },
        { id: 'dlv_unknown', code: 'delivery_not_found' },
      ]),
    );
    expect((await json<Problem>(tenant.call('POST', '/v1/dead-letters/retry', { ids: [] }), 400)).code).toBe(
      'validation_failed',
    );

    // --- replay one: a new round of the finished delivery, same webhook-id ----------------
    const replayed = await json<Delivery>(tenant.call('POST', `/v1/replay/deliveries/${id}`), 202);
    expect(replayed).toMatchObject({ id, round: 2, status: 'pending' });
    await expect.poll(() => sent('/rh'), { timeout: 30_000 }).toBe(4);
    await expect.poll(() => statusOf(tenant, id), { timeout: 30_000 }).toBe('succeeded');
    const log = await getDelivery(tenant, id);
    expect(log.attempts.map((a) => `${a.round}:${a.attempt}:${a.httpStatus}`)).toEqual([
      '2:1:200',
      '1:3:200',
      '1:2:500',
      '1:1:500',
    ]);
    expect(receiver.requests.filter((r) => r.path === '/rh')[3]!.headers['webhook-id']).toBe(
      rhRequests[0]!.headers['webhook-id'],
    );

    // A delivery waiting for its next scheduled attempt is pending: replay answers 409.
    statusFor.set('/slow', 500);
    await createEndpoint(tenant, '/slow', 'railhook', ['slow.*'], {
      maxAttempts: 3,
      retryDelays: [600],
      timeoutSeconds: 5,
    });
    const slow = await publish(tenant, 'slow.created', { n: 2 });
    await expect
      .poll(
        async () => {
          const s = await getDelivery(tenant, slow);
          return `${s.status}:${s.attemptCount}:${s.nextAttemptAt !== undefined}`;
        },
        { timeout: 30_000 },
      )
      .toBe('pending:1:true');
    expect((await json<Problem>(tenant.call('POST', `/v1/replay/deliveries/${slow}`), 409)).code).toBe(
      'delivery_in_progress',
    );

    // Dong Tien: 5 failed attempts in a row suspend the endpoint; its dead letter is blocked.
    statusFor.set('/dt', 500);
    const dt = await createEndpoint(tenant, '/dt', 'dongtien', ['dt.*'], {
      maxAttempts: 5,
      retryDelays: [1],
      timeoutSeconds: 5,
    });
    const blockedId = await publish(tenant, 'dt.created', { n: 3 });
    // Another dead letter on the healthy Railhook endpoint: ready.
    statusFor.set('/rh', 500);
    const readyId = await publish(tenant, 'flow.again', { n: 4 });
    await expect.poll(() => statusOf(tenant, readyId), { timeout: 60_000 }).toBe('exhausted');
    await expect.poll(() => statusOf(tenant, blockedId), { timeout: 60_000 }).toBe('exhausted');
    await expect
      .poll(
        async () =>
          (await json<{ health: { status: string } }>(tenant.call('GET', `/v1/endpoints/${dt}`), 200)).health
            .status,
        {
          timeout: 30_000,
        },
      )
      .toBe('suspended');

    type Preview = Record<
      'blocked' | 'waiting' | 'ready',
      Array<{ id: string; reason?: string; lastError: string | null }>
    >;
    const preview = () => json<Preview>(tenant.call('GET', '/v1/replay/failures/preview'), 200);
    await expect
      .poll(
        async () => {
          const p = await preview();
          return {
            blocked: p.blocked.map((x) => x.id),
            waiting: p.waiting.map((x) => x.id),
            ready: p.ready.map((x) => x.id),
          };
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual({ blocked: [blockedId], waiting: [slow], ready: [readyId] });
    const p = await preview();
    expect(p.blocked[0]).toMatchObject({ reason: 'endpoint_suspended', lastError: 'http_500' });

    statusFor.set('/rh', 200);
    const before = sent('/rh');
    const bulkReplay = await json<{ replayed: string[]; blocked: string[]; waiting: string[] }>(
      tenant.call('POST', '/v1/replay/failures'),
      202,
    );
    expect(bulkReplay).toMatchObject({ replayed: [readyId], blocked: [blockedId], waiting: [slow] });
    await expect.poll(() => statusOf(tenant, readyId), { timeout: 30_000 }).toBe('succeeded');
    expect(sent('/rh')).toBe(before + 1);
    expect(sent('/dt')).toBe(5);
    expect((await getDelivery(tenant, readyId)).round).toBe(2);
  });

  it('14.17 R-LOG R-SMENGO-LOG: the recent view holds exactly the 25 newest deliveries across 3 endpoints, newest first, with code, attempts and body', async () => {
    const tenant = await newTenant(app);
    const paths = ['/recent-a', '/recent-b', '/recent-c'];
    const endpoints: string[] = [];
    for (const [k, path] of paths.entries()) {
      statusFor.set(path, 200);
      endpoints.push(
        await createEndpoint(tenant, path, 'smengo', [`recent${k}.*`], {
          maxAttempts: 3,
          retryDelays: [1],
          timeoutSeconds: 5,
        }),
      );
    }
    const sentAll = () => paths.reduce((n, p) => n + sent(p), 0);
    const oldest = [
      await publish(tenant, 'recent0.old', { i: -2 }),
      await publish(tenant, 'recent1.old', { i: -1 }),
    ];
    await expect.poll(sentAll, { timeout: 30_000 }).toBe(2);
    await delay(50);
    // One at a time, a few ms apart, across the 3 endpoints: the publish order is the age order.
    const newer: string[] = [];
    for (let i = 0; i < 25; i++) {
      newer.push(await publish(tenant, `recent${i % 3}.new`, { i }));
      await delay(5);
    }
    await expect.poll(sentAll, { timeout: 60_000 }).toBe(27);

    const recent = () => json<{ data: Delivery[] }>(tenant.call('GET', '/v1/deliveries/recent'), 200);
    await expect
      .poll(async () => (await recent()).data.filter((x) => x.status === 'succeeded').length, {
        timeout: 30_000,
        interval: 500,
      })
      .toBe(25);
    const { data } = await recent();
    expect(data).toHaveLength(25);
    // Exactly the 25 newest, newest first, from every endpoint.
    expect(data.map((x) => x.id)).toEqual([...newer].reverse());
    expect(new Set(data.map((x) => x.endpointId))).toEqual(new Set(endpoints));
    const times = data.map((x) => Date.parse(x.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const [k, x] of data.entries()) {
      const i = 24 - k;
      expect(x).toMatchObject({
        eventType: `recent${i % 3}.new`,
        endpointId: endpoints[i % 3],
        responseCode: 200,
        attemptCount: 1,
        status: 'succeeded',
      });
      expect(x.attempts).toHaveLength(1);
      expect(JSON.parse(x.body!)).toMatchObject({ type: `recent${i % 3}.new`, data: { i } });
    }

    const list = await json<{ data: Array<{ id: string; createdAt: string }> }>(
      tenant.call('GET', '/v1/deliveries?limit=5'),
      200,
    );
    expect(list.data.map((x) => x.id)).toEqual(data.slice(0, 5).map((x) => x.id));
    for (const [k, id] of oldest.entries()) {
      const old = await json<{ data: Array<{ id: string }> }>(
        tenant.call(
          'GET',
          `/v1/deliveries?eventType=recent${k}.old&until=${encodeURIComponent(new Date().toISOString())}`,
        ),
        200,
      );
      expect(old.data.map((x) => x.id)).toEqual([id]);
    }
    // Smengo offers no manual retry: its deliveries close at once.
    expect((await json<Problem>(tenant.call('POST', `/v1/dead-letters/${newer[0]}/retry`), 409)).code).toBe(
      'not_retryable',
    );
  });

  it('R-BIRD-REPLAY: a window replay answers 202 with no body and sends each failed delivery exactly once more; 20 per day', async () => {
    const tenant = await newTenant(app);
    const bird = await createEndpoint(tenant, '/bird', 'bird', ['bird.*'], {
      maxAttempts: 2,
      retryDelays: [1],
      timeoutSeconds: 5,
    });
    const failing = [
      await publish(tenant, 'bird.fail', { n: 1 }),
      await publish(tenant, 'bird.fail', { n: 2 }),
    ];
    const ok = await publish(tenant, 'bird.ok', { n: 3 });
    for (const id of failing)
      await expect.poll(() => statusOf(tenant, id), { timeout: 60_000 }).toBe('exhausted');
    await expect.poll(() => statusOf(tenant, ok), { timeout: 30_000 }).toBe('succeeded');
    expect(sent('/bird')).toBe(5);
    // The window job finds its deliveries through visibility: let the statuses be indexed.
    await expect
      .poll(
        async () =>
          (
            await json<{ data: unknown[] }>(
              tenant.call('GET', `/v1/deliveries?endpointId=${bird}&status=exhausted`),
              200,
            )
          ).data.length,
        { timeout: 30_000 },
      )
      .toBe(2);

    const jobsDone = async () => {
      let n = 0;
      const query = `WorkflowType = '${REPLAY_WINDOW_WORKFLOW}' AND HeraldEndpoint = '${bird}' AND ExecutionStatus = 'Completed'`;
      for await (const _ of w.client.workflow.list({ query })) n++;
      return n;
    };
    const windowReplay = (body: Record<string, unknown> = {}) =>
      tenant.call('POST', '/v1/replay/window', { endpointId: bird, ...body });

    const res = await windowReplay({ since: new Date(Date.now() - 10 * 86_400_000).toISOString() });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    await expect.poll(jobsDone, { timeout: 60_000, interval: 500 }).toBe(1);
    await expect.poll(() => sent('/bird'), { timeout: 30_000 }).toBe(7);
    await delay(2000);
    expect(sent('/bird')).toBe(7);
    const byEvent = (id: string) =>
      receiver.requests.filter((r) => r.path === '/bird' && r.headers['webhook-id'] === id).length;
    for (const id of failing) {
      const s = await getDelivery(tenant, id);
      expect(byEvent(s.eventId)).toBe(3);
      await expect.poll(() => statusOf(tenant, id), { timeout: 30_000 }).toBe('exhausted');
      const latest = (await getDelivery(tenant, id)).attempts[0]!;
      expect(latest).toMatchObject({ round: 2, attempt: 1, replay: true, httpStatus: 500 });
    }
    expect(byEvent((await getDelivery(tenant, ok)).eventId)).toBe(1);

    // A paused endpoint: 202, counted, nothing sent.
    await json(tenant.call('POST', `/v1/endpoints/${bird}/pause`), 200);
    expect((await windowReplay()).status).toBe(202);
    await expect.poll(jobsDone, { timeout: 60_000, interval: 500 }).toBe(2);
    expect(sent('/bird')).toBe(7);

    // 20 window replays per UTC day, then 429 WebhookReplayQuotaExceeded with Retry-After.
    for (let i = 2; i < 20; i++) expect((await windowReplay()).status).toBe(202);
    const refused = await windowReplay();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as Problem).code).toBe('WebhookReplayQuotaExceeded');
    expect(
      (await json<Problem>(tenant.call('POST', '/v1/replay/window', { endpointId: 'ep_doesnotexist' }), 404))
        .code,
    ).toBe('endpoint_not_found');
  });
});

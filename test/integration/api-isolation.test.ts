import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { TEST_OPERATOR_KEY, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * SPEC §4: tenants see only their own data. Tenant B, holding a valid key of its own,
 * names every one of tenant A's resources by id and gets a 404 (never a 403, never data);
 * B's lists never show A's ids; A's things are unchanged afterwards.
 */

type Json = Record<string, unknown>;
interface EndpointView {
  endpointId: string;
  config: { url: string; description?: string };
  health: { status: string };
  lastTest?: unknown;
  secretCount: number;
}
interface Published {
  eventId: string;
  deliveries: Array<{ id: string; endpointId: string }>;
}

const PROBLEM = /^application\/problem\+json/;

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

describe('tenant isolation on the dev server', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  const receiver = new Receiver((req, _i, res) => {
    if (req.path.startsWith('/a-dead')) res.writeHead(500).end('boom');
    else res.writeHead(200).end('ok');
  });
  let base: string;
  let A: TenantSession;
  let B: TenantSession;
  /** A's things, by id. */
  const a = {
    endpoint: '',
    deadEndpoint: '',
    secret: '',
    url: '',
    events: [] as string[],
    deliveries: [] as string[],
    deadLetter: '',
    eventType: 'secret.a-only',
  };
  let bEndpoint = '';
  let aView: EndpointView;

  /**
   * Everything of A's that must never show up in an answer to B. (`shared-event-id` is also
   * the id of B's own event, so it is checked by the event routes instead.)
   */
  const aSecrets = () =>
    [
      A.tenantId,
      a.endpoint,
      a.deadEndpoint,
      a.url,
      a.secret.slice(6),
      ...a.events,
      ...a.deliveries,
      'a-private-payload',
    ].filter((s) => s !== 'shared-event-id');

  async function expectNotFound(res: Response, code: string) {
    const text = await res.text();
    expect({ status: res.status, text }).toMatchObject({ status: 404 });
    expect(res.headers.get('content-type')).toMatch(PROBLEM);
    expect(JSON.parse(text)).toMatchObject({ status: 404, code });
    for (const s of aSecrets()) expect(text).not.toContain(s);
  }

  async function expectRefused(res: Response) {
    const text = await res.text();
    expect([400, 404]).toContain(res.status);
    expect(res.headers.get('content-type')).toMatch(PROBLEM);
    expect((JSON.parse(text) as Json).code).toEqual(expect.any(String));
    for (const s of [a.endpoint, a.url, a.secret.slice(6), 'a-private-payload'])
      expect(text).not.toContain(s);
  }

  const bList = async (path: string) => {
    const res = await B.call('GET', path);
    const text = await res.text();
    expect({ status: res.status, text }).toMatchObject({ status: 200 });
    return text;
  };

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
    [A, B] = await Promise.all([newTenant(app, 'Tenant A'), newTenant(app, 'Tenant B')]);

    a.url = `${base}/a-hook-private`;
    const created = (await (
      await A.call('POST', '/v1/endpoints', { url: a.url, description: 'A only', eventTypes: ['secret.*'] })
    ).json()) as {
      endpoint: EndpointView;
      secret: string;
    };
    a.endpoint = created.endpoint.endpointId;
    a.secret = created.secret;
    const dead = (await (
      await A.call('POST', '/v1/endpoints', {
        url: `${base}/a-dead`,
        preset: 'railhook',
        eventTypes: ['doomed.*'],
        policy: { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 },
      })
    ).json()) as { endpoint: EndpointView };
    a.deadEndpoint = dead.endpoint.endpointId;
    const bCreated = (await (
      await B.call('POST', '/v1/endpoints', { url: `${base}/b-hook`, eventTypes: ['secret.*'] })
    ).json()) as {
      endpoint: EndpointView;
    };
    bEndpoint = bCreated.endpoint.endpointId;

    for (const body of [
      { id: 'shared-event-id', type: a.eventType, payload: { note: 'a-private-payload' } },
      { type: 'secret.second', payload: { note: 'a-private-payload' } },
      { type: 'doomed.one', payload: { note: 'a-private-payload' } },
    ]) {
      const p = (await (await A.call('POST', '/v1/events', body)).json()) as Published;
      a.events.push(p.eventId);
      a.deliveries.push(...p.deliveries.map((d) => d.id));
    }
    a.deadLetter = a.deliveries[2]!;
    expect(a.deliveries).toHaveLength(3);
    await waitUntil('A’s dead letter', async () => {
      const res = await A.call('GET', '/v1/dead-letters');
      return res.status === 200 && (await res.text()).includes(a.deadLetter);
    });
    await waitUntil('A’s deliveries in visibility', async () => {
      const res = await A.call('GET', '/v1/deliveries');
      const text = await res.text();
      return a.deliveries.every((id) => text.includes(id));
    });
    aView = (await (await A.call('GET', `/v1/endpoints/${a.endpoint}`)).json()) as EndpointView;
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('B gets 404 endpoint_not_found (never 403, never data) on GET, PATCH, DELETE and every action of A’s endpoint', async () => {
    const ep = `/v1/endpoints/${a.endpoint}`;
    await expectNotFound(await B.call('GET', ep), 'endpoint_not_found');
    await expectNotFound(
      await B.call('PATCH', ep, { description: 'taken over', url: `${base}/b-steals` }),
      'endpoint_not_found',
    );
    await expectNotFound(await B.call('PATCH', ep, { eventTypes: ['*'] }), 'endpoint_not_found');
    for (const action of ['pause', 'resume', 'test', 'rotate-secret'])
      await expectNotFound(await B.call('POST', `${ep}/${action}`), 'endpoint_not_found');
    await expectNotFound(await B.call('DELETE', ep), 'endpoint_not_found');

    // A's endpoint is untouched: same config, active, one secret, no test sent.
    const after = (await (await A.call('GET', ep)).json()) as EndpointView;
    expect(after).toEqual(aView);
    expect(after.health.status).toBe('active');
    expect(after.secretCount).toBe(1);
    expect(after.lastTest).toBeUndefined();
    expect(receiver.requests.filter((r) => r.path === '/b-steals')).toHaveLength(0);
    expect(
      receiver.requests.filter(
        (r) =>
          r.path === '/a-hook-private' &&
          r.headers['webhook-id'] !== a.events[0] &&
          r.headers['webhook-id'] !== a.events[1],
      ),
    ).toHaveLength(0);
  });

  it('B gets 404 event_not_found on A’s events; the same event id in B names B’s own event', async () => {
    for (const id of a.events)
      await expectNotFound(await B.call('GET', `/v1/events/${id}`), 'event_not_found');
    // R-IDEMP is per tenant: B publishing A's event id creates B's event, not A's answer.
    const res = await B.call('POST', '/v1/events', {
      id: 'shared-event-id',
      type: 'secret.b',
      payload: { mine: 'b' },
    });
    expect(res.status).toBe(202);
    const text = await res.text();
    for (const s of aSecrets()) expect(text).not.toContain(s);
    const p = JSON.parse(text) as Published & { type: string };
    expect(p.type).toBe('secret.b');
    expect(p.deliveries.map((d) => d.endpointId)).toEqual([bEndpoint]);
    const own = (await (await B.call('GET', '/v1/events/shared-event-id')).json()) as Json;
    expect(own).toMatchObject({ type: 'secret.b', payload: { mine: 'b' } });
    // A's event with that id is still A's.
    const aOwn = (await (await A.call('GET', '/v1/events/shared-event-id')).json()) as Json;
    expect(aOwn).toMatchObject({ type: a.eventType, payload: { note: 'a-private-payload' } });
  });

  it('B gets 404 delivery_not_found on A’s deliveries: GET, dead-letter retry, replay; bulk retry names none of them as retried', async () => {
    for (const id of a.deliveries) {
      await expectNotFound(await B.call('GET', `/v1/deliveries/${id}`), 'delivery_not_found');
      await expectNotFound(await B.call('POST', `/v1/dead-letters/${id}/retry`), 'delivery_not_found');
      await expectNotFound(await B.call('POST', `/v1/replay/deliveries/${id}`), 'delivery_not_found');
    }
    const bulk = await B.call('POST', '/v1/dead-letters/retry', { ids: a.deliveries });
    expect(bulk.status).toBe(202);
    const r = (await bulk.json()) as { retried: string[]; failed: Array<{ id: string; code: string }> };
    expect(r.retried).toEqual([]);
    expect(r.failed.map((f) => f.code)).toEqual(a.deliveries.map(() => 'delivery_not_found'));
    const all = (await (await B.call('POST', '/v1/dead-letters/retry', { all: true })).json()) as {
      retried: string[];
    };
    expect(all.retried).toEqual([]);
    const failures = await B.call('POST', '/v1/replay/failures');
    expect(failures.status).toBe(202);
    const ft = await failures.text();
    for (const s of aSecrets()) expect(ft).not.toContain(s);
    await expectNotFound(
      await B.call('POST', '/v1/replay/window', { endpointId: a.deadEndpoint }),
      'endpoint_not_found',
    );

    // A's dead letter is still exactly that: one attempt, exhausted, not retried by B.
    const d = (await (await A.call('GET', `/v1/deliveries/${a.deadLetter}`)).json()) as {
      status: string;
      attemptCount: number;
      round: number;
    };
    expect(d).toMatchObject({ status: 'exhausted', attemptCount: 1, round: 1 });
  });

  it('B’s lists never include A’s ids: endpoints, events, deliveries, recent, dead letters, replay preview (also filtered by A’s ids)', async () => {
    // B's own event is visible to B first, so visibility has caught up.
    await expect
      .poll(async () => (await bList('/v1/events')).includes('shared-event-id'), { timeout: 10_000 })
      .toBe(true);
    await expect
      .poll(async () => (await bList('/v1/deliveries')).includes(bEndpoint), { timeout: 10_000 })
      .toBe(true);
    const paths = [
      '/v1/endpoints',
      '/v1/events',
      `/v1/events?type=${a.eventType}`,
      '/v1/deliveries',
      `/v1/deliveries?endpointId=${a.endpoint}`,
      `/v1/deliveries?endpointId=${a.deadEndpoint}&status=exhausted`,
      `/v1/deliveries?eventType=${a.eventType}`,
      '/v1/deliveries/recent',
      '/v1/dead-letters',
      `/v1/dead-letters?endpointId=${a.deadEndpoint}`,
      '/v1/replay/failures/preview',
      `/v1/replay/failures/preview?endpointId=${a.deadEndpoint}`,
    ];
    for (const p of paths) {
      const text = await bList(p);
      for (const s of aSecrets()) expect(text, `${p} leaks ${s}`).not.toContain(s);
    }
    const endpoints = JSON.parse(await bList('/v1/endpoints')) as { data: EndpointView[] };
    expect(endpoints.data.map((e) => e.endpointId)).toEqual([bEndpoint]);
    const byType = JSON.parse(await bList(`/v1/events?type=${a.eventType}`)) as { data: unknown[] };
    expect(byType.data).toEqual([]);
    // A's own lists do hold them (the lists work; B just cannot see them).
    expect(await (await A.call('GET', '/v1/dead-letters')).text()).toContain(a.deadLetter);
  });

  it('a visibility-query injection through a filter reaches none of A’s data and never answers 5xx', async () => {
    const injections = [
      `x' OR HeraldTenant = '${A.tenantId}`,
      `x" OR HeraldTenant = "${A.tenantId}`,
      `x\\' OR HeraldTenant = \\'${A.tenantId}`,
      `') OR ('1' = '1`,
      `${a.eventType}' OR WorkflowType = 'eventWorkflow`,
    ];
    for (const inj of injections) {
      for (const path of [
        `/v1/events?type=${encodeURIComponent(inj)}`,
        `/v1/deliveries?eventType=${encodeURIComponent(inj)}`,
      ]) {
        const res = await B.call('GET', path);
        const text = await res.text();
        expect(res.status, `${path}: ${text}`).toBeLessThan(500);
        for (const s of aSecrets()) expect(text).not.toContain(s);
        if (res.status === 200) expect((JSON.parse(text) as { data: unknown[] }).data).toEqual([]);
        else expect(res.headers.get('content-type')).toMatch(PROBLEM);
      }
    }
  });

  it('A’s tenant id or another kind of workflow id in B’s paths → 400/404 with no data', async () => {
    const otherKinds = [
      A.tenantId,
      `ev_${A.tenantId}_${a.events[0]}`,
      `ev_${A.tenantId}_shared-event-id`,
      a.deliveries[0]!,
      `${a.endpoint}_x`,
      encodeURIComponent(`${a.endpoint}/`),
      encodeURIComponent(`../endpoints/${a.endpoint}`),
    ];
    for (const id of otherKinds) {
      await expectRefused(await B.call('GET', `/v1/endpoints/${id}`));
      await expectRefused(await B.call('PATCH', `/v1/endpoints/${id}`, { description: 'x' }));
      await expectRefused(await B.call('DELETE', `/v1/endpoints/${id}`));
      await expectRefused(await B.call('POST', `/v1/endpoints/${id}/pause`));
      await expectRefused(await B.call('GET', `/v1/events/${id}`));
      await expectRefused(await B.call('GET', `/v1/deliveries/${id}`));
      await expectRefused(await B.call('POST', `/v1/dead-letters/${id}/retry`));
      await expectRefused(await B.call('POST', `/v1/replay/deliveries/${id}`));
    }
    // Event ids naming A's workflows from inside B's namespace of ids.
    for (const id of [A.tenantId, `${A.tenantId}_shared-event-id`, a.endpoint, a.deliveries[0]!])
      await expectNotFound(await B.call('GET', `/v1/events/${id}`), 'event_not_found');
    // Endpoint-id filters that are not endpoint ids.
    for (const p of [`/v1/deliveries?endpointId=${A.tenantId}`, `/v1/dead-letters?endpointId=${A.tenantId}`])
      await expectRefused(await B.call('GET', p));
    await expectRefused(await B.call('POST', '/v1/replay/window', { endpointId: A.tenantId }));
  });

  it('credentials do not cross: a key mixing A’s tenant id with B’s key, or B’s key on A’s admin routes → 401', async () => {
    const [, , bKeyId, bSecret] = B.apiKey.split('.');
    const [, , aKeyId] = A.apiKey.split('.');
    for (const key of [`hk.${A.tenantId}.${bKeyId}.${bSecret}`, `hk.${A.tenantId}.${aKeyId}.${bSecret}`]) {
      const res = await app.request(`/v1/endpoints/${a.endpoint}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as Json).code).toBe('unauthorized');
    }
    for (const [method, path] of [
      ['GET', `/v1/admin/tenants/${A.tenantId}`],
      ['POST', `/v1/admin/tenants/${A.tenantId}/keys`],
    ] as const) {
      const res = await B.call(method, path);
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).not.toContain('Tenant A');
    }
    // The operator still sees A unchanged: one key.
    const view = (await (
      await app.request(`/v1/admin/tenants/${A.tenantId}`, {
        headers: { authorization: `Bearer ${TEST_OPERATOR_KEY}` },
      })
    ).json()) as { apiKeys: unknown[] };
    expect(view.apiKeys).toHaveLength(1);
  });
});

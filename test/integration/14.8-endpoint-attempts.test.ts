import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { jsonOf as json, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * Issue 14.8: the seed's `listWebhookAttempts` ("Próby dostarczenia rejestrują wynik i
 * opóźnienie każdego żądania HTTP, od najnowszych"): GET /v1/endpoints/{id}/attempts, every
 * attempt made to one endpoint across its deliveries, newest first, paginated.
 */

type Row = {
  deliveryId: string;
  eventId: string;
  eventType: string;
  kind: string;
  attempt: number;
  round: number;
  startedAt: string;
  latencyMs: number;
  result: 'succeeded' | 'failed';
  httpStatus?: number;
  code?: string;
  responseBody?: string;
};
type Page = { data: Row[]; nextCursor: string | null; truncated: boolean };
type Problem = { status: number; code: string };

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}

describe('14.8 R-BIRD-REPLAY: GET /v1/endpoints/{id}/attempts (dev server)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  // By event type: ok → 200, fail → 500, slow → 200 after 300 ms.
  const receiver = new Receiver((req, _i, res) => {
    const type = (JSON.parse(req.body) as { type: string }).type;
    if (type.endsWith('.fail')) return res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (type.endsWith('.slow')) setTimeout(answer, 300);
    else answer();
  });
  let base: string;
  let t: TenantSession;
  let other: TenantSession;
  let bird = '';
  let std = '';
  /** `<deliveryId>:<attempt>` of every request the Bird endpoint received, in arrival order. */
  const birdSends = () =>
    receiver.requests.filter((r) => r.path === '/bird').map((r) => String(r.headers['webhook-delivery-id']));

  const attempts = (id: string, query = '', as = t) =>
    json<Page>(as.call('GET', `/v1/endpoints/${id}/attempts${query}`), 200);

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
    t = await newTenant(app);
    other = await newTenant(app, 'Other');
    const make = async (path: string, preset: string, eventTypes: string[]) => {
      const r = await t.call('POST', '/v1/endpoints', {
        url: `${base}${path}`,
        preset,
        eventTypes,
        policy: { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 5 },
      });
      if (r.status !== 201) throw new Error(await r.text());
      return ((await r.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
    };
    [bird, std] = await Promise.all([make('/bird', 'bird', ['att.*']), make('/std', 'standard', ['std.*'])]);
    // One event at a time, each waited for, so the arrival order is the attempt order.
    const publish = async (type: string, requests: number) => {
      const r = await t.call('POST', '/v1/events', { type, payload: { type } });
      if (r.status !== 202) throw new Error(await r.text());
      await waitUntil(`${type} sent`, () => birdSends().length === requests);
    };
    await publish('att.ok', 1);
    await publish('att.fail', 3); // first attempt and its retry 1 s later
    await publish('att.slow', 4);
    const s = await t.call('POST', '/v1/events', { type: 'std.ok', payload: {} });
    if (s.status !== 202) throw new Error(await s.text());
    await waitUntil('std sent', () => receiver.requests.some((r) => r.path === '/std'));
    // Every attempt is recorded (the slow one finishes after its response): read through
    // the per-delivery view, so only the listing under test is new.
    await waitUntil('attempt log', async () => {
      const list = await t.call('GET', `/v1/deliveries?endpointId=${bird}`);
      const ids = ((await list.json()) as { data: Array<{ id: string }> }).data.map((d) => d.id);
      if (ids.length !== 3) return false;
      const logs = await Promise.all(
        ids.map(async (id) => {
          const d = (await (await t.call('GET', `/v1/deliveries/${id}`)).json()) as {
            status: string;
            attempts: Array<{ kind: string }>;
          };
          return d.status === 'pending' || d.status === 'processing' ? -1 : d.attempts.length;
        }),
      );
      return !logs.includes(-1) && logs.reduce((a, b) => a + b, 0) === 4;
    });
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it("14.8 R-BIRD-REPLAY: every attempt to the endpoint, newest first, each with its result and latency; another endpoint's attempts are not there", async () => {
    const page = await attempts(bird, '?limit=200');
    expect(page).toMatchObject({ nextCursor: null, truncated: false });
    // Newest first is the reverse of what the receiver saw.
    expect(page.data.map((r) => `${r.deliveryId}:${r.attempt}`)).toEqual([...birdSends()].reverse());
    const times = page.data.map((r) => Date.parse(r.startedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const [slow, fail2, fail1, ok] = page.data as [Row, Row, Row, Row];
    expect(slow).toMatchObject({ eventType: 'att.slow', result: 'succeeded', httpStatus: 200, attempt: 1 });
    expect(slow.latencyMs).toBeGreaterThanOrEqual(300);
    for (const [row, n] of [
      [fail2, 2],
      [fail1, 1],
    ] as const)
      expect(row).toMatchObject({
        eventType: 'att.fail',
        kind: 'attempt',
        attempt: n,
        round: 1,
        result: 'failed',
        httpStatus: 500,
        code: 'http_500',
        responseBody: 'boom',
      });
    expect(fail1.deliveryId).toBe(fail2.deliveryId);
    expect(ok).toMatchObject({ eventType: 'att.ok', result: 'succeeded', httpStatus: 200 });
    for (const r of page.data) expect(r.latencyMs).toEqual(expect.any(Number));

    // Offered under every preset: the standard endpoint lists its own attempt only.
    const s = await attempts(std);
    expect(s.data).toHaveLength(1);
    expect(s.data[0]).toMatchObject({ eventType: 'std.ok', result: 'succeeded' });
  });

  it('14.8 R-BIRD-REPLAY: pages of `limit` follow nextCursor to the same list, the last page ends with null', async () => {
    const full = (await attempts(bird, '?limit=200')).data;
    const walked: Row[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await attempts(bird, q);
      expect(page.data.length).toBeLessThanOrEqual(3);
      walked.push(...page.data);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(2);
    expect(walked).toEqual(full);
    // A default page holds all four.
    expect((await attempts(bird)).data).toEqual(full);
  });

  it("14.8 R-BIRD-REPLAY: another tenant's endpoint → 404; unknown → 404; bad id, limit or cursor → 400", async () => {
    const p404 = await json<Problem>(other.call('GET', `/v1/endpoints/${bird}/attempts`), 404);
    expect(p404.code).toBe('endpoint_not_found');
    expect(
      (await json<Problem>(t.call('GET', '/v1/endpoints/ep_ffffffffffffffffffffffff/attempts'), 404)).code,
    ).toBe('endpoint_not_found');
    expect((await json<Problem>(t.call('GET', '/v1/endpoints/nope/attempts'), 400)).code).toBe(
      'validation_failed',
    );
    expect((await json<Problem>(t.call('GET', `/v1/endpoints/${bird}/attempts?limit=0`), 400)).code).toBe(
      'validation_failed',
    );
    const bad = await t.call('GET', `/v1/endpoints/${bird}/attempts?cursor=not-a-cursor`);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await json<Problem>(bad, 400)).code).toBe('invalid_cursor');
  });

  it('14.8 R-BIRD-REPLAY: /openapi.json documents the route and its response schema', async () => {
    const doc = await json<{
      paths: Record<
        string,
        Record<
          string,
          { responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }
        >
      >;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    }>(app.request('/openapi.json'), 200);
    const get = doc.paths['/v1/endpoints/{id}/attempts']?.get;
    expect(get).toBeDefined();
    expect(Object.keys(get!.responses).sort()).toEqual(['200', '400', '404']);
    expect(get!.responses['200']!.content!['application/json']!.schema.$ref).toBe(
      '#/components/schemas/EndpointAttemptPage',
    );
    expect(Object.keys(doc.components.schemas.EndpointAttemptPage!.properties).sort()).toEqual([
      'data',
      'nextCursor',
      'truncated',
    ]);
    expect(Object.keys(doc.components.schemas.EndpointAttempt!.properties)).toEqual(
      expect.arrayContaining(['deliveryId', 'startedAt', 'latencyMs', 'result', 'httpStatus', 'code']),
    );
  });
});

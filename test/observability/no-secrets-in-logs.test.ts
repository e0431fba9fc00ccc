// Issue 20: the API and worker processes log JSON lines of a stable shape, and no secret, API
// key or body reaches any of them: a run through every route of the OpenAPI document (debug
// level, bodies carrying a marker, a wrong key, deliveries sent and failed) and the logs of
// both processes searched for every secret the run saw.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_OPERATOR_KEY } from '../helpers/api.js';
import { freePort } from '../helpers/ports.js';
import { Receiver } from '../helpers/receiver.js';
import { TEST_CODEC_KEY } from '../helpers/temporal.js';
import { ChildHerald } from './herald-processes.js';

const BODY_MARKER = 'body-marker-5f0c1e';
const WRONG_KEY = 'hk_wrong_key_0123456789abcdef0123';

describe('issue 20: structured logs, and nothing secret in them', () => {
  const taskQueue = `logs-${Math.random().toString(36).slice(2, 8)}`;
  const common = { HERALD_TASK_QUEUE: taskQueue, HERALD_LOG_LEVEL: 'debug' };
  let api: ChildHerald;
  const worker = new ChildHerald('src/worker.ts', common);
  const receiver = new Receiver((_r, i, res) => res.writeHead(i % 2 ? 200 : 500).end('receiver-says-hi'));
  let base: string;
  let url: string;
  /** Every value the run saw that must never be logged. */
  const secrets = new Set<string>([TEST_OPERATOR_KEY, TEST_CODEC_KEY, BODY_MARKER, WRONG_KEY]);

  const collect = (v: unknown, key = '') => {
    if (typeof v === 'string') {
      if (/secret|key|token/i.test(key) && v.length >= 12) secrets.add(v);
    } else if (Array.isArray(v)) v.forEach((x) => collect(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, k);
  };
  const call = async (method: string, path: string, bearer: string, body?: unknown) => {
    const r = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    collect(json);
    return { status: r.status, json: json as Record<string, unknown> };
  };

  beforeAll(async () => {
    const apiPort = await freePort();
    api = new ChildHerald('src/api/server.ts', { ...common, HERALD_API_PORT: String(apiPort) });
    url = `http://127.0.0.1:${apiPort}`;
    [base] = await Promise.all([receiver.start(), worker.start('worker polling'), api.start('API on http')]);
  });

  afterAll(async () => {
    await api?.stop();
    await worker.stop();
    await receiver.stop();
  });

  it('every route, a wrong key and failing deliveries leave no secret, key or body in any log line', async () => {
    const t = await call('POST', '/v1/admin/tenants', TEST_OPERATOR_KEY, {
      name: 'Logs',
      billingEmail: 'ops@example.com',
    });
    expect(t.status).toBe(201);
    const tenantId = (t.json.tenant as { tenantId: string }).tenantId;
    const key = t.json.apiKey as string;
    secrets.add(key);
    const ep = await call('POST', '/v1/endpoints', key, {
      url: `${base}/hook`,
      eventTypes: ['l.one'],
      policy: { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 5 },
    });
    expect(ep.status).toBe(201);
    const endpointId = (ep.json.endpoint as { endpointId: string }).endpointId;
    const pub = await call('POST', '/v1/events', key, {
      type: 'l.one',
      payload: { note: BODY_MARKER, password: BODY_MARKER },
    });
    expect(pub.status).toBe(202);
    const eventId = pub.json.eventId as string;
    const deliveryId = (pub.json.deliveries as Array<{ id: string }>)[0]!.id;
    const src = await call('POST', '/v1/sources', key, { name: 'in', verification: { kind: 'none' } });
    const sourceId = (src.json?.source as { sourceId?: string } | undefined)?.sourceId ?? 'src_unknown';
    await receiver.waitFor(2, 60_000);

    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const ids: Record<string, string> = {
      tenantId,
      keyId: 'key_unknown',
      sourceId,
      eventId,
      destinationId: 'dst_unknown',
    };
    const idFor = (path: string) =>
      path.startsWith('/v1/endpoints')
        ? endpointId
        : path.startsWith('/v1/sources')
          ? sourceId
          : path.startsWith('/v1/forwards')
            ? 'fwd_unknown'
            : deliveryId;
    const body = {
      name: BODY_MARKER,
      url: `${base}/${BODY_MARKER}`,
      payload: { note: BODY_MARKER },
      type: 'l.one',
      expression: `{"x": "${BODY_MARKER}"}`,
      event: { note: BODY_MARKER },
    };
    let routes = 0;
    for (const [template, ops] of Object.entries(doc.paths)) {
      const path = template.replace(/\{(\w+)\}/g, (_m, p: string) => ids[p] ?? idFor(template));
      for (const method of Object.keys(ops)) {
        // Deleting the endpoint or the source first would leave the rest nothing to read.
        if (method === 'delete' && !path.includes('/keys/')) continue;
        const bearer = path.startsWith('/v1/admin') ? TEST_OPERATOR_KEY : key;
        const r = await call(method.toUpperCase(), path, bearer, method === 'get' ? undefined : body);
        expect(r.status, `${method} ${path}`).toBeLessThan(500);
        routes++;
      }
    }
    expect(routes).toBeGreaterThan(35);
    // A wrong key, and an ingest to a source that does not exist.
    expect((await call('GET', '/v1/endpoints', WRONG_KEY)).status).toBe(401);
    expect(
      (await call('POST', `/in/${BODY_MARKER}`, WRONG_KEY, { note: BODY_MARKER })).status,
    ).toBeGreaterThanOrEqual(400);
    // And the deletes, last.
    expect((await call('DELETE', `/v1/endpoints/${endpointId}`, key)).status).toBeLessThan(500);
    expect((await call('DELETE', `/v1/sources/${sourceId}`, key)).status).toBeLessThan(500);
    await new Promise((r) => setTimeout(r, 1_000));

    const output = api.output + worker.output;
    const lines = output.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(10);
    // The stable shape: one JSON object per line with time, level and message.
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(typeof entry.time, line).toBe('string');
      expect(['debug', 'info', 'warn', 'error']).toContain(entry.level);
      expect(typeof entry.message, line).toBe('string');
    }
    // The API's access lines (debug): one per request, by route template, with the tenant.
    const access = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.message === 'request');
    expect(access.length).toBeGreaterThanOrEqual(routes);
    expect(access.some((e) => e.route === '/v1/endpoints/:id' && e.tenant === tenantId)).toBe(true);
    // The worker's debug lines name the deliveries they are about.
    expect(lines.some((l) => l.includes(deliveryId))).toBe(true);
    expect(secrets.size).toBeGreaterThanOrEqual(6);
    const leaked = [...secrets].filter((s) => output.includes(s));
    expect(leaked).toEqual([]);
    expect(output).not.toContain('receiver-says-hi');
  });
});

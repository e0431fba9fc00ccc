import { setTimeout as delay } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { TEST_OPERATOR_KEY, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { jsonResponses, operationOf, validate, type OpenApiDoc } from '../helpers/openapi-conformance.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * Issue 15 step 1: the OpenAPI document tells the truth. Every operation with a JSON answer
 * is called for real (dev server, a worker, a receiver on 127.0.0.1), and each answer is
 * checked against the schema the document gives for that operation and status, objects
 * closed: a field sent but not documented fails, as does a documented required one missing.
 * The last test fails when an operation of the document was never exercised here.
 */
type Json = Record<string, unknown>;
type App = ReturnType<typeof createApp>;

const FAST = { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 };

describe('15.5 every documented response matches the OpenAPI document (dev server)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: App;
  let doc: OpenApiDoc;
  let t: TenantSession;
  let base: string;
  const covered = new Set<string>();
  const drift: string[] = [];
  const receiver = new Receiver((req, _i, res) => {
    if (req.path.startsWith('/fail')) return res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    if (req.path.startsWith('/verify')) {
      const { challenge } = JSON.parse(req.body || '{}') as { challenge?: string };
      if (challenge)
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge }));
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });

  /** Sends the request and checks its JSON answer against the document. */
  async function send(path: string, init: RequestInit, expectStatus: number): Promise<Json> {
    const res = await app.request(path, init);
    const text = await res.text();
    expect({ status: res.status, text: text.slice(0, 500) }).toMatchObject({ status: expectStatus });
    const method = (init.method ?? 'GET').toUpperCase();
    const op = operationOf(doc, method, path);
    expect(op, `${method} ${path} is in the document`).toBeDefined();
    const response = doc.paths[op!]![method.toLowerCase()]!.responses[String(res.status)];
    expect(response, `${method} ${op} documents ${res.status}`).toBeDefined();
    const schema = response!.content?.['application/json']?.schema;
    if (!schema) {
      expect(text, `${method} ${op} ${res.status} documents no body`).toBe('');
      return {};
    }
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = JSON.parse(text) as unknown;
    // Collected, not thrown: one run lists every operation that drifts.
    for (const e of validate(doc, schema, body)) drift.push(`${method} ${op} ${res.status} ${e}`);
    covered.add(`${method} ${op} ${res.status}`);
    return body as Json;
  }
  const call = (method: string, path: string, status: number, body?: unknown) =>
    send(
      path,
      {
        method,
        headers: {
          authorization: `Bearer ${t.apiKey}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      status,
    );
  const admin = (method: string, path: string, status: number, body?: unknown) =>
    send(
      path,
      {
        method,
        headers: {
          authorization: `Bearer ${TEST_OPERATOR_KEY}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      status,
    );
  /** A list read until it holds what it should (visibility lags); an empty list proves nothing. */
  async function listUntil(path: string, ok: (data: Json[]) => boolean, timeoutMs = 30_000) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const { data } = (await call('GET', path, 200)) as { data: Json[] };
      if (ok(data)) return data;
      if (Date.now() > end) throw new Error(`${path} never held what was expected: ${JSON.stringify(data)}`);
      await delay(250);
    }
  }
  async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
      await delay(250);
    }
  }
  const deliveryStatus = async (id: string) => {
    const res = await t.call('GET', `/v1/${id.startsWith('fwd_') ? 'forwards' : 'deliveries'}/${id}`);
    return res.status === 200 ? ((await res.json()) as { status: string }).status : `http_${res.status}`;
  };

  beforeAll(async () => {
    // The portal secret opens POST /v1/portal-links, so it is checked too.
    [w, base] = await Promise.all([
      startDevWorker({ HERALD_PORTAL_SECRET: 'conformance-portal-secret-0123456789abcdef' }),
      receiver.start(),
    ]);
    app = createApp({ client: w.client, config: w.config });
    doc = (await (await app.request('/openapi.json')).json()) as OpenApiDoc;
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('15.5: admin routes (tenants and keys)', async () => {
    const created = (await admin('POST', '/v1/admin/tenants', 201, {
      name: 'Conformance Co',
      billingEmail: 'billing@conformance.example',
    })) as { tenant: { tenantId: string }; apiKey: string };
    const tenantId = created.tenant.tenantId;
    await admin('GET', `/v1/admin/tenants/${tenantId}`, 200);
    const issued = (await admin('POST', `/v1/admin/tenants/${tenantId}/keys`, 201)) as { keyId: string };
    // A revoked key is listed with its revokedAt: the document must name it.
    const revoked = (await admin('DELETE', `/v1/admin/tenants/${tenantId}/keys/${issued.keyId}`, 200)) as {
      apiKeys: Json[];
    };
    expect(revoked.apiKeys.some((k) => typeof k.revokedAt === 'number')).toBe(true);
    await admin('PUT', `/v1/admin/tenants/${tenantId}/subscription`, 200, { active: true });
    // Issue 17: the tenant's rate limit, set (shown in the view) and removed.
    const limited = (await admin('PUT', `/v1/admin/tenants/${tenantId}/rate-limit`, 200, {
      rateLimit: { perSecond: 5, burst: 2 },
    })) as { rateLimit?: Json };
    expect(limited.rateLimit).toEqual({ perSecond: 5, burst: 2 });
    await admin('PUT', `/v1/admin/tenants/${tenantId}/rate-limit`, 200, { rateLimit: null });
    t = await newTenant(app, 'Conformance Tenant');
  });

  let okEp = '';
  let failEp = '';
  it('15.5: endpoints, with health and banner as the API sends them', async () => {
    const created = (await call('POST', '/v1/endpoints', 201, {
      url: `${base}/ok`,
      description: 'conformance',
      eventTypes: ['conf.ok'],
      preset: 'standard',
      operationalWebhook: { url: `${base}/ops` },
    })) as { endpoint: { endpointId: string } };
    okEp = created.endpoint.endpointId;
    failEp = (
      (await call('POST', '/v1/endpoints', 201, {
        url: `${base}/fail`,
        eventTypes: ['conf.fail'],
        preset: 'railhook',
        policy: FAST,
      })) as { endpoint: { endpointId: string } }
    ).endpoint.endpointId;
    await call('GET', '/v1/endpoints', 200);
    await call('GET', `/v1/endpoints/${okEp}`, 200);
    await call('PATCH', `/v1/endpoints/${okEp}`, 200, { description: 'patched' });
    // Paused: the view carries a banner (R-SMENGO-HEALTH), checked field by field.
    const paused = (await call('POST', `/v1/endpoints/${failEp}/pause`, 200)) as { banner?: Json };
    expect(paused.banner).toMatchObject({ status: 'paused' });
    await call('GET', `/v1/endpoints/${failEp}`, 200);
    await call('POST', `/v1/endpoints/${failEp}/resume`, 200);
    const tested = (await call('POST', `/v1/endpoints/${okEp}/test`, 200)) as { ok: boolean };
    expect(tested.ok).toBe(true);
    // The view after a test holds its lastTest.
    await call('GET', `/v1/endpoints/${okEp}`, 200);
    await call('POST', `/v1/endpoints/${okEp}/rotate-secret`, 200);

    const verifying = (
      (await call('POST', '/v1/endpoints', 201, {
        url: `${base}/verify`,
        eventTypes: ['conf.none'],
        verification: 'challenge',
      })) as { endpoint: { endpointId: string } }
    ).endpoint.endpointId;
    const verified = (await call('POST', `/v1/endpoints/${verifying}/verify`, 200)) as { verified: boolean };
    expect(verified.verified).toBe(true);
    await call('DELETE', `/v1/endpoints/${verifying}`, 204);
  });

  it('15.5: transformations dry run', async () => {
    await call('POST', '/v1/transformations/dry-run', 200, {
      transformation: '{ "kind": type }',
      event: { type: 'conf.dry', payload: { a: 1 } },
    });
  });

  const dl: string[] = [];
  let okDelivery = '';
  it('15.5: events and deliveries', async () => {
    const published = (await call('POST', '/v1/events', 202, {
      id: 'evt_conformance_1',
      type: 'conf.ok',
      payload: { n: 1 },
    })) as { deliveries: Array<{ id: string }> };
    okDelivery = published.deliveries[0]!.id;
    // The same id again answers the same record (R-IDEMP), under the same schema.
    await call('POST', '/v1/events', 202, { id: 'evt_conformance_1', type: 'conf.ok', payload: { n: 1 } });
    for (let i = 0; i < 3; i++) {
      const p = (await call('POST', '/v1/events', 202, { type: 'conf.fail', payload: { i } })) as {
        deliveries: Array<{ id: string }>;
      };
      dl.push(p.deliveries[0]!.id);
    }
    await until(
      'the ok delivery',
      () => deliveryStatus(okDelivery),
      (s) => s === 'succeeded',
    );
    for (const id of dl)
      await until(
        `dead letter ${id}`,
        () => deliveryStatus(id),
        (s) => s === 'exhausted',
      );

    await listUntil('/v1/events', (d) => d.length >= 4);
    await call('GET', '/v1/events/evt_conformance_1', 200);
    await listUntil('/v1/deliveries', (d) => d.length >= 4);
    await listUntil('/v1/deliveries/recent', (d) => d.length >= 1);
    await call('GET', `/v1/deliveries/${okDelivery}`, 200);
    await call('GET', `/v1/deliveries/${dl[0]}`, 200);
    const attempts = (await call('GET', `/v1/endpoints/${failEp}/attempts`, 200)) as { data: Json[] };
    expect(attempts.data.length).toBeGreaterThan(0);
  });

  it('15.5: dead letters and replay', async () => {
    await listUntil('/v1/dead-letters', (d) => d.length >= 3);
    await call('GET', '/v1/replay/failures/preview', 200);
    await call('POST', `/v1/dead-letters/${dl[0]}/retry`, 202);
    await call('POST', '/v1/dead-letters/retry', 202, { ids: [dl[1]] });
    await call('POST', `/v1/replay/deliveries/${okDelivery}`, 202);
    await call('POST', '/v1/replay/failures', 202);
    await call('POST', '/v1/replay/window', 202, { endpointId: failEp });
  });

  it('15.5: sources, the ingest URL and forwards', async () => {
    const created = (await call('POST', '/v1/sources', 201, {
      name: 'conformance',
      verification: { kind: 'standard_webhooks' },
      destinations: [{ url: `${base}/in-ok` }, { url: `${base}/fail-in`, policy: FAST }],
    })) as { source: { sourceId: string; ingestUrl: string }; secret: string };
    const { sourceId } = created.source;
    const ingestPath = new URL(created.source.ingestUrl).pathname;
    await call('GET', '/v1/sources', 200);
    await call('GET', `/v1/sources/${sourceId}`, 200);
    await call('PATCH', `/v1/sources/${sourceId}`, 200, { description: 'patched' });
    const added = (await call('POST', `/v1/sources/${sourceId}/destinations`, 201, {
      url: `${base}/in-extra`,
    })) as {
      destination: { destinationId: string };
    };
    const destId = added.destination.destinationId;
    await call('PATCH', `/v1/sources/${sourceId}/destinations/${destId}`, 200, {
      description: 'patched',
      policy: { maxAttempts: 2 },
    });
    await call('DELETE', `/v1/sources/${sourceId}/destinations/${destId}`, 200);

    const payload = '{"type":"conf.inbound"}';
    const at = new Date();
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'msg_conformance_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(created.secret).sign('msg_conformance_1', at, payload),
    };
    const accepted = (await send(ingestPath, { method: 'POST', headers, body: payload }, 202)) as {
      forwards: Array<{ id: string; destinationId: string }>;
    };
    // The same signed message again: 200 duplicate.
    await send(ingestPath, { method: 'POST', headers, body: payload }, 200);

    const failing = accepted.forwards[1]!.id;
    await until(
      'the failing forward',
      () => deliveryStatus(failing),
      (s) => s === 'exhausted',
    );
    await listUntil(`/v1/forwards?sourceId=${sourceId}`, (d) => d.length >= 2);
    await call('GET', `/v1/forwards/${accepted.forwards[0]!.id}`, 200);
    await call('GET', `/v1/forwards/${failing}`, 200);
    await listUntil(`/v1/forwards/dead-letters?sourceId=${sourceId}`, (d) => d.length >= 1);
    await call('POST', `/v1/forwards/dead-letters/${failing}/retry`, 202);
    // Already retried: the bulk answer reports it among the failed.
    const bulk = (await call('POST', '/v1/forwards/dead-letters/retry', 202, { ids: [failing] })) as {
      failed: Json[];
    };
    expect(bulk.failed).toHaveLength(1);
    await call('DELETE', `/v1/sources/${sourceId}`, 204);
  });

  it('15.5: portal links', async () => {
    await call('POST', '/v1/portal-links', 201, { expiresInMinutes: 5 });
  });

  it('15.5: no response sent a field the document does not name, or left out one it requires', () => {
    expect(drift).toEqual([]);
  });

  it('15.5: every operation with a JSON answer in the document was checked against a real one', () => {
    expect(jsonResponses(doc).filter((r) => !covered.has(r))).toEqual([]);
  });
});

import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { Directory } from '../../src/store/directory.js';
import { temporalEndpointStore } from '../../src/store/endpoints.js';
import { REPLAY_WINDOW_WORKFLOW } from '../../src/shared/names.js';
import { revokeApiKeyUpdate } from '../../src/shared/tenant-messages.js';
import { TEST_OPERATOR_KEY, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * Every route of the tenant and admin API on the dev server: its success path and its
 * failure paths, with status, `application/problem+json` and the stable `code` (SPEC §4).
 */

type App = ReturnType<typeof createApp>;
type Json = Record<string, unknown>;

interface EndpointView {
  endpointId: string;
  tenantId: string;
  config: { url: string; description?: string; eventTypes?: string[]; preset: string; policy?: Json };
  health: { status: string; reason?: string };
  banner?: { status: string; reason: string; message: string };
  lastTest?: { ok: boolean; httpStatus?: number; latencyMs: number; at: number };
  secretCount: number;
  createdAt: number;
  deleted: boolean;
}

interface Published {
  eventId: string;
  type: string;
  occurredAt: string;
  deliveries: Array<{ id: string; endpointId: string }>;
  skipped: Array<{ endpointId: string; reason: string }>;
}

const PROBLEM = /^application\/problem\+json/;

async function expectProblem(res: Response, status: number, code: string): Promise<Json> {
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status });
  expect(res.headers.get('content-type')).toMatch(PROBLEM);
  const body = JSON.parse(text) as Json;
  expect(body).toMatchObject({ status, code });
  expect(typeof body.title).toBe('string');
  expect(body.type).toBe(`https://herald.dev/problems/${code}`);
  return body;
}

async function okJson<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return JSON.parse(text) as T;
}

/** Polls outside a test body (hooks cannot use expect.poll). */
async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const keyParts = (apiKey: string) => {
  const [, tenantId, keyId, secret] = apiKey.split('.');
  return { tenantId: tenantId!, keyId: keyId!, secret: secret! };
};

describe('API routes on the dev server', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: App;
  const receiver = new Receiver((req, _i, res) => {
    if (req.path.startsWith('/gone')) res.writeHead(410).end('gone');
    else if (req.path.startsWith('/dl-')) res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  let base: string;
  const at = (path: string) => receiver.requests.filter((r) => r.path === path);

  /** `key: null` sends no Authorization header at all. */
  const admin = (method: string, path: string, body?: unknown, key: string | null = TEST_OPERATOR_KEY) =>
    app.request(path, {
      method,
      headers: {
        ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  describe('admin routes (operator key)', () => {
    it('POST /v1/admin/tenants: 201, the API key is shown once, the tenant view holds neither the key nor its hash', async () => {
      const res = await admin('POST', '/v1/admin/tenants', {
        name: 'Admin Co',
        billingEmail: 'billing@admin.example',
      });
      const body = await okJson<{ tenant: Json & { tenantId: string; apiKeys: Json[] }; apiKey: string }>(
        res,
        201,
      );
      expect(body.apiKey).toMatch(/^hk\.tn_[A-Za-z0-9]+\.key_[a-f0-9]+\.[A-Za-z0-9_-]{20,}$/);
      const { tenantId, keyId, secret } = keyParts(body.apiKey);
      expect(body.tenant).toMatchObject({
        tenantId,
        name: 'Admin Co',
        billingEmail: 'billing@admin.example',
        subscriptionActive: true,
      });
      expect(body.tenant.apiKeys).toHaveLength(1);
      expect(Object.keys(body.tenant.apiKeys[0]!).sort()).toEqual(['createdAt', 'keyId']);
      expect(body.tenant.apiKeys[0]!.keyId).toBe(keyId);
      const tenantText = JSON.stringify(body.tenant);
      expect(tenantText).not.toContain(secret);
      expect(tenantText).not.toContain(sha256(secret));
      expect(tenantText).not.toMatch(/"hash"/);

      const view = await okJson<Json>(await admin('GET', `/v1/admin/tenants/${tenantId}`), 200);
      expect(view).toMatchObject({ tenantId, name: 'Admin Co', subscriptionActive: true });
      const viewText = JSON.stringify(view);
      expect(viewText).not.toContain(secret);
      expect(viewText).not.toContain(sha256(secret));
      expect(viewText).not.toMatch(/"hash"/);
      expect(viewText).not.toContain('hk.');

      // The key works.
      const list = await app.request('/v1/endpoints', {
        headers: { authorization: `Bearer ${body.apiKey}` },
      });
      expect(list.status).toBe(200);
    });

    it('POST /v1/admin/tenants/{id}/keys: 201 with a new key shown once; both keys work; still no hashes', async () => {
      const t = await newTenant(app, 'Two Keys');
      const res = await admin('POST', `/v1/admin/tenants/${t.tenantId}/keys`);
      const body = await okJson<{ keyId: string; apiKey: string }>(res, 201);
      expect(body.apiKey).toMatch(new RegExp(`^hk\\.${t.tenantId}\\.${body.keyId}\\.`));
      for (const key of [t.apiKey, body.apiKey]) {
        const r = await app.request('/v1/endpoints', { headers: { authorization: `Bearer ${key}` } });
        expect(r.status).toBe(200);
      }
      const view = await okJson<{ apiKeys: Array<{ keyId: string }> }>(
        await admin('GET', `/v1/admin/tenants/${t.tenantId}`),
        200,
      );
      expect(view.apiKeys.map((k) => k.keyId).sort()).toEqual([keyParts(t.apiKey).keyId, body.keyId].sort());
      const text = JSON.stringify(view);
      for (const key of [t.apiKey, body.apiKey]) {
        expect(text).not.toContain(keyParts(key).secret);
        expect(text).not.toContain(sha256(keyParts(key).secret));
      }
    });

    it('PUT /v1/admin/tenants/{id}/subscription: 200 with the new state, both ways', async () => {
      const t = await newTenant(app, 'Subscriber');
      const off = await okJson<Json>(
        await admin('PUT', `/v1/admin/tenants/${t.tenantId}/subscription`, { active: false }),
        200,
      );
      expect(off).toMatchObject({ tenantId: t.tenantId, subscriptionActive: false });
      const view = await okJson<Json>(await admin('GET', `/v1/admin/tenants/${t.tenantId}`), 200);
      expect(view.subscriptionActive).toBe(false);
      const on = await okJson<Json>(
        await admin('PUT', `/v1/admin/tenants/${t.tenantId}/subscription`, { active: true }),
        200,
      );
      expect(on).toMatchObject({ tenantId: t.tenantId, subscriptionActive: true });
    });

    it('every admin route answers 401 unauthorized without the operator key, with a wrong one, or with a tenant key', async () => {
      const t = await newTenant(app, 'Not An Operator');
      const routes: Array<[string, string, unknown]> = [
        ['POST', '/v1/admin/tenants', { name: 'Sneaky' }],
        ['GET', `/v1/admin/tenants/${t.tenantId}`, undefined],
        ['POST', `/v1/admin/tenants/${t.tenantId}/keys`, undefined],
        ['PUT', `/v1/admin/tenants/${t.tenantId}/subscription`, { active: false }],
      ];
      for (const [method, path, body] of routes) {
        for (const key of [null, 'wrong-operator-key-0123456789', `${TEST_OPERATOR_KEY}x`, t.apiKey]) {
          await expectProblem(await admin(method, path, body, key), 401, 'unauthorized');
        }
      }
      // Nothing changed: one key, still subscribed.
      const view = await okJson<{ apiKeys: unknown[]; subscriptionActive: boolean }>(
        await admin('GET', `/v1/admin/tenants/${t.tenantId}`),
        200,
      );
      expect(view.apiKeys).toHaveLength(1);
      expect(view.subscriptionActive).toBe(true);
    });

    it('without a configured operator key every admin route is closed: 403 operator_key_not_configured', async () => {
      const closed = createApp({ client: w.client, config: { ...w.config, HERALD_OPERATOR_KEY: undefined } });
      const res = await closed.request('/v1/admin/tenants', {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_OPERATOR_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Nobody' }),
      });
      await expectProblem(res, 403, 'operator_key_not_configured');
      await expectProblem(
        await closed.request('/v1/admin/tenants/tn_abc'),
        403,
        'operator_key_not_configured',
      );
    });

    it('unknown tenant → 404 tenant_not_found; a malformed tenant id or body → 400 validation_failed', async () => {
      const ghost = 'tn_000000000000000000000000';
      await expectProblem(await admin('GET', `/v1/admin/tenants/${ghost}`), 404, 'tenant_not_found');
      await expectProblem(await admin('POST', `/v1/admin/tenants/${ghost}/keys`), 404, 'tenant_not_found');
      await expectProblem(
        await admin('PUT', `/v1/admin/tenants/${ghost}/subscription`, { active: true }),
        404,
        'tenant_not_found',
      );
      await expectProblem(await admin('GET', '/v1/admin/tenants/ep_123abc'), 400, 'validation_failed');
      await expectProblem(await admin('GET', '/v1/admin/tenants/tn_a-b'), 400, 'validation_failed');
      await expectProblem(await admin('POST', '/v1/admin/tenants', { name: '' }), 400, 'validation_failed');
      await expectProblem(
        await admin('POST', '/v1/admin/tenants', { name: 'X', billingEmail: 'not-an-email' }),
        400,
        'validation_failed',
      );
      await expectProblem(
        await admin('POST', '/v1/admin/tenants', { name: 'X', plan: 'gold' }),
        400,
        'validation_failed',
      );
      const t = await newTenant(app, 'Sub Body');
      await expectProblem(
        await admin('PUT', `/v1/admin/tenants/${t.tenantId}/subscription`, { active: 'yes' }),
        400,
        'validation_failed',
      );
      await expectProblem(
        await admin('PUT', `/v1/admin/tenants/${t.tenantId}/subscription`, {}),
        400,
        'validation_failed',
      );
    });
  });

  describe('tenant authentication', () => {
    let t: TenantSession;
    beforeAll(async () => {
      t = await newTenant(app, 'Auth Co');
    });
    const tenantRoutes: Array<[string, string, unknown]> = [
      ['GET', '/v1/endpoints', undefined],
      ['POST', '/v1/endpoints', { url: 'https://example.com/hook' }],
      ['GET', '/v1/endpoints/ep_0123456789abcdef01234567', undefined],
      ['PATCH', '/v1/endpoints/ep_0123456789abcdef01234567', { description: 'x' }],
      ['DELETE', '/v1/endpoints/ep_0123456789abcdef01234567', undefined],
      ['POST', '/v1/endpoints/ep_0123456789abcdef01234567/pause', undefined],
      ['POST', '/v1/events', { type: 'auth.probe', payload: {} }],
      ['GET', '/v1/events', undefined],
      ['GET', '/v1/events/msg_1', undefined],
    ];
    const withHeader = (method: string, path: string, body: unknown, authorization?: string) =>
      app.request(path, {
        method,
        headers: {
          ...(authorization !== undefined ? { authorization } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    it('no Authorization header → 401 unauthorized on every tenant route', async () => {
      for (const [m, p, b] of tenantRoutes)
        await expectProblem(await withHeader(m, p, b), 401, 'unauthorized');
    });

    it('a malformed key → 401 unauthorized', async () => {
      const { tenantId, keyId, secret } = keyParts(t.apiKey);
      const bad = [
        'Bearer',
        'Bearer ',
        'Bearer abc',
        `Basic ${Buffer.from(`${tenantId}:${secret}`).toString('base64')}`,
        `Bearer hk.${tenantId}.${keyId}.short`,
        `Bearer hk.${tenantId}.${keyId}`,
        `Bearer ${t.apiKey}.extra`,
        `Bearer ${t.apiKey} trailing`,
        `Token ${t.apiKey}`,
        t.apiKey,
        `Bearer ${TEST_OPERATOR_KEY}`,
      ];
      for (const h of bad) {
        for (const [m, p, b] of tenantRoutes.slice(0, 2))
          await expectProblem(await withHeader(m, p, b, h), 401, 'unauthorized');
      }
    });

    it('an unknown key (wrong secret, unknown key id, unknown tenant) → 401 unauthorized', async () => {
      const { tenantId, keyId, secret } = keyParts(t.apiKey);
      const flipped = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
      const bad = [
        `hk.${tenantId}.${keyId}.${flipped}`,
        `hk.${tenantId}.key_000000000000.${secret}`,
        `hk.tn_000000000000000000000000.${keyId}.${secret}`,
      ];
      for (const key of bad) {
        for (const [m, p, b] of tenantRoutes)
          await expectProblem(await withHeader(m, p, b, `Bearer ${key}`), 401, 'unauthorized');
      }
      // The real key still works, also with a lower-case scheme.
      expect((await withHeader('GET', '/v1/endpoints', undefined, `bearer ${t.apiKey}`)).status).toBe(200);
    });

    it('a revoked key → 401 unauthorized; the tenant’s other key keeps working', async () => {
      const issued = await okJson<{ keyId: string; apiKey: string }>(
        await admin('POST', `/v1/admin/tenants/${t.tenantId}/keys`),
        201,
      );
      await w.client.workflow
        .getHandle(t.tenantId)
        .executeUpdate(revokeApiKeyUpdate, { args: [{ keyId: issued.keyId }] });
      // A fresh API process (no key cache): the revocation holds at once.
      const fresh = createApp({ client: w.client, config: w.config });
      for (const [m, p, b] of tenantRoutes) {
        const res = await fresh.request(p, {
          method: m,
          headers: {
            authorization: `Bearer ${issued.apiKey}`,
            ...(b !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: b === undefined ? undefined : JSON.stringify(b),
        });
        await expectProblem(res, 401, 'unauthorized');
      }
      expect(
        (await fresh.request('/v1/endpoints', { headers: { authorization: `Bearer ${t.apiKey}` } })).status,
      ).toBe(200);
      const view = await okJson<{ apiKeys: Array<{ keyId: string; revokedAt?: number }> }>(
        await admin('GET', `/v1/admin/tenants/${t.tenantId}`),
        200,
      );
      expect(view.apiKeys.find((k) => k.keyId === issued.keyId)?.revokedAt).toEqual(expect.any(Number));
    });
  });

  describe('endpoints', () => {
    let t: TenantSession;
    let first: EndpointView;
    let firstSecret: string;
    beforeAll(async () => {
      t = await newTenant(app, 'Endpoints Co');
    });
    const view = async (id: string) => okJson<EndpointView>(await t.call('GET', `/v1/endpoints/${id}`), 200);
    const list = async () =>
      (await okJson<{ data: EndpointView[] }>(await t.call('GET', '/v1/endpoints'), 200)).data;

    it('POST /v1/endpoints: 201 with a whsec_ secret returned once; it is never in GET or the list', async () => {
      const res = await t.call('POST', '/v1/endpoints', {
        url: `${base}/ep-first`,
        description: 'first',
        eventTypes: ['order.*'],
      });
      const body = await okJson<{ endpoint: EndpointView; secret: string }>(res, 201);
      expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      expect(body.endpoint).toMatchObject({
        tenantId: t.tenantId,
        config: {
          url: `${base}/ep-first`,
          description: 'first',
          eventTypes: ['order.*'],
          preset: 'standard',
        },
        health: { status: 'active' },
        secretCount: 1,
        deleted: false,
      });
      expect(body.endpoint.endpointId).toMatch(/^ep_[a-f0-9]+$/);
      expect(body.endpoint.banner).toBeUndefined();
      expect(JSON.stringify(body.endpoint)).not.toContain('whsec_');
      first = body.endpoint;
      firstSecret = body.secret;

      const got = await t.call('GET', `/v1/endpoints/${first.endpointId}`);
      const gotText = await got.clone().text();
      expect(gotText).not.toContain(firstSecret.slice(6));
      expect(gotText).not.toContain('whsec_');
      expect(await okJson<EndpointView>(got, 200)).toMatchObject({
        endpointId: first.endpointId,
        health: { status: 'active' },
      });
      const listText = await (await t.call('GET', '/v1/endpoints')).text();
      expect(listText).toContain(first.endpointId);
      expect(listText).not.toContain('whsec_');
    });

    it('an operational webhook’s secret is returned once on create and never in GET, the list or a PATCH answer', async () => {
      const res = await t.call('POST', '/v1/endpoints', {
        url: `${base}/ep-ops`,
        operationalWebhook: { url: `${base}/ops` },
      });
      const body = await okJson<{ endpoint: EndpointView; secret: string; operationalWebhookSecret: string }>(
        res,
        201,
      );
      expect(body.operationalWebhookSecret).toMatch(/^whsec_/);
      const id = body.endpoint.endpointId;
      try {
        const texts = [
          JSON.stringify(body.endpoint),
          await (await t.call('GET', `/v1/endpoints/${id}`)).text(),
          await (await t.call('GET', '/v1/endpoints')).text(),
          await (await t.call('PATCH', `/v1/endpoints/${id}`, { description: 'ops' })).text(),
        ];
        for (const text of texts) {
          expect(text).not.toContain('whsec_');
          expect(text).not.toContain(body.operationalWebhookSecret.slice(6));
        }
      } finally {
        await t.call('DELETE', `/v1/endpoints/${id}`);
      }
    });

    const badUrls: Array<[string, string]> = [
      ['http://example.com/x', 'not_https'],
      ['ftp://example.com/x', 'not_https'],
      ['https://example.com:22/x', 'port_not_allowed'],
      ['https://example.com:8080/x', 'port_not_allowed'],
      ['https://user:pw@example.com/x', 'userinfo_not_allowed'],
      ['https://user@example.com/x', 'userinfo_not_allowed'],
      ['https://example.com/x#frag', 'fragment_not_allowed'],
      ['https://exa mple.com/x', 'invalid_url'],
      ['https:///just/a/path', 'invalid_url'],
      ['notaurl-at-all', 'invalid_url'],
      [`https://example.com/${'a'.repeat(2100)}`, 'url_too_long'],
      ['https://a', 'url_too_short'],
    ];

    it.each(badUrls)('R-URL: POST /v1/endpoints with %s → 400 %s, nothing created', async (url, code) => {
      const before = (await list()).length;
      const body = await expectProblem(await t.call('POST', '/v1/endpoints', { url }), 400, code);
      expect(body.path).toBe('url');
      expect(typeof body.detail).toBe('string');
      expect((await list()).length).toBe(before);
    });

    it('R-URL: the length codes hold at any length: an empty URL is url_too_short, a 5,000-character one url_too_long', async () => {
      await expectProblem(await t.call('POST', '/v1/endpoints', { url: '' }), 400, 'url_too_short');
      await expectProblem(
        await t.call('POST', '/v1/endpoints', { url: `https://example.com/${'a'.repeat(5000)}` }),
        400,
        'url_too_long',
      );
      await expectProblem(
        await t.call('PATCH', `/v1/endpoints/${first.endpointId}`, { url: '' }),
        400,
        'url_too_short',
      );
      await expectProblem(
        await t.call('PATCH', `/v1/endpoints/${first.endpointId}`, {
          url: `https://example.com/${'a'.repeat(5000)}`,
        }),
        400,
        'url_too_long',
      );
    });

    it('R-URL: PATCH with each bad URL → 400 with its code; the endpoint keeps its URL', async () => {
      for (const [url, code] of badUrls) {
        const body = await expectProblem(
          await t.call('PATCH', `/v1/endpoints/${first.endpointId}`, { url }),
          400,
          code,
        );
        expect(body.path).toBe('url');
      }
      expect((await view(first.endpointId)).config.url).toBe(`${base}/ep-first`);
    });

    it('R-URL: an operational webhook URL and an event target URL are checked the same way', async () => {
      await expectProblem(
        await t.call('POST', '/v1/endpoints', {
          url: `${base}/ok`,
          operationalWebhook: { url: 'http://example.com/ops' },
        }),
        400,
        'not_https',
      );
      const body = await expectProblem(
        await t.call('POST', '/v1/events', {
          type: 'target.probe',
          payload: {},
          targets: [{ url: 'https://example.com/x#y', secrets: [firstSecret] }],
        }),
        400,
        'fragment_not_allowed',
      );
      expect(body.path).toBe('targets.0.url');
    });

    it('Bird refuses a private address literal when the URL is set (private_address)', async () => {
      await expectProblem(
        await t.call('POST', '/v1/endpoints', { url: 'http://127.0.0.2:9/hook', preset: 'bird' }),
        400,
        'private_address',
      );
    });

    it('R-RH-GRAMMAR: an unreadable retryableStatuses list → 400 whose body names the bad term; a good one is accepted', async () => {
      const created = await expectProblem(
        await t.call('POST', '/v1/endpoints', {
          url: `${base}/rh`,
          preset: 'railhook',
          policy: { retryableStatuses: '5xx,abc' },
        }),
        400,
        'validation_failed',
      );
      expect(JSON.stringify(created)).toContain('abc');
      expect(String(created.detail)).toContain('"abc"');

      const patched = await expectProblem(
        await t.call('PATCH', `/v1/endpoints/${first.endpointId}`, {
          policy: { retryableStatuses: '429,>=5o0' },
        }),
        400,
        'validation_failed',
      );
      expect(String(patched.detail)).toContain('>=5o0');

      const good = await okJson<EndpointView>(
        await t.call('PATCH', `/v1/endpoints/${first.endpointId}`, {
          policy: { retryableStatuses: '5xx,!501' },
        }),
        200,
      );
      expect(good.config.policy).toEqual({ retryableStatuses: '5xx,!501' });
    });

    it('GET /v1/endpoints lists newest first; GET one shows health (no banner while active); 404 unknown, 400 malformed id', async () => {
      const second = await okJson<{ endpoint: EndpointView }>(
        await t.call('POST', '/v1/endpoints', { url: `${base}/ep-second` }),
        201,
      );
      const ids = (await list()).map((e) => e.endpointId);
      expect(ids.indexOf(second.endpoint.endpointId)).toBeLessThan(ids.indexOf(first.endpointId));
      expect(ids.indexOf(second.endpoint.endpointId)).toBeGreaterThanOrEqual(0);

      const one = await view(first.endpointId);
      expect(one.health).toMatchObject({ status: 'active', consecutiveFailures: 0 });
      expect(one.banner).toBeUndefined();

      await expectProblem(
        await t.call('GET', '/v1/endpoints/ep_0123456789abcdef01234567'),
        404,
        'endpoint_not_found',
      );
      await expectProblem(await t.call('GET', '/v1/endpoints/not-an-id'), 400, 'validation_failed');
      await t.call('DELETE', `/v1/endpoints/${second.endpoint.endpointId}`);
    });

    it('pause → paused with a banner (manual); PATCH description keeps health and banner; resume → active, no banner', async () => {
      const paused = await okJson<EndpointView>(
        await t.call('POST', `/v1/endpoints/${first.endpointId}/pause`),
        200,
      );
      expect(paused.health.status).toBe('paused');
      expect(paused.banner).toMatchObject({ status: 'paused', reason: 'manual' });

      const patched = await okJson<EndpointView>(
        await t.call('PATCH', `/v1/endpoints/${first.endpointId}`, { description: 'renamed' }),
        200,
      );
      expect(patched.config.description).toBe('renamed');
      expect(patched.config.url).toBe(`${base}/ep-first`);
      expect(patched.health.status).toBe('paused');
      expect(patched.banner).toMatchObject({ status: 'paused', reason: 'manual' });
      expect((await view(first.endpointId)).health.status).toBe('paused');

      const resumed = await okJson<EndpointView>(
        await t.call('POST', `/v1/endpoints/${first.endpointId}/resume`),
        200,
      );
      expect(resumed.health.status).toBe('active');
      expect(resumed.banner).toBeUndefined();
    });

    it('a 410 disables the endpoint: GET shows health and the banner reason; PATCH description keeps it; PATCH url changes the URL; resume re-enables', async () => {
      const ep = await okJson<{ endpoint: EndpointView }>(
        await t.call('POST', '/v1/endpoints', { url: `${base}/gone-1`, eventTypes: ['gone.*'] }),
        201,
      );
      const id = ep.endpoint.endpointId;
      expect((await t.call('POST', '/v1/events', { type: 'gone.now', payload: {} })).status).toBe(202);
      await expect.poll(async () => (await view(id)).health.status, { timeout: 20_000 }).toBe('disabled');
      const disabled = await view(id);
      expect(disabled.banner).toMatchObject({ status: 'disabled', reason: 'gone' });
      expect(disabled.banner!.message).toMatch(/410/);

      const described = await okJson<EndpointView>(
        await t.call('PATCH', `/v1/endpoints/${id}`, { description: 'still gone' }),
        200,
      );
      expect(described.health).toMatchObject({ status: 'disabled', reason: 'gone' });
      expect(described.banner).toMatchObject({ reason: 'gone' });

      const moved = await okJson<EndpointView>(
        await t.call('PATCH', `/v1/endpoints/${id}`, { url: `${base}/back` }),
        200,
      );
      expect(moved.config.url).toBe(`${base}/back`);
      expect(moved.config.description).toBe('still gone');
      expect((await view(id)).config.url).toBe(`${base}/back`);

      const resumed = await okJson<EndpointView>(await t.call('POST', `/v1/endpoints/${id}/resume`), 200);
      expect(resumed.health.status).toBe('active');
      expect(resumed.banner).toBeUndefined();
      await t.call('DELETE', `/v1/endpoints/${id}`);
    });

    it('DELETE twice: a change that reaches an endpoint whose workflow has already closed answers "gone", which the API shows as 404 endpoint_not_found, not a 500', async () => {
      const created = await okJson<{ endpoint: EndpointView }>(
        await t.call('POST', '/v1/endpoints', { url: `${base}/twice-deleted`, eventTypes: ['twice.*'] }),
        201,
      );
      const id = created.endpoint.endpointId;
      expect((await t.call('DELETE', `/v1/endpoints/${id}`)).status).toBe(204);
      await expect
        .poll(async () => (await w.client.workflow.getHandle(id).describe()).status.name, { timeout: 15_000 })
        .toBe('COMPLETED');
      // What a second DELETE that read the endpoint before the first closed it does next.
      const store = temporalEndpointStore({
        client: w.client,
        taskQueue: w.config.HERALD_TASK_QUEUE,
        directory: new Directory(w.client),
      });
      expect(await store.remove(id)).toBeUndefined();
      expect(await store.pause(id)).toBeUndefined();
      expect((await t.call('DELETE', `/v1/endpoints/${id}`)).status).toBe(404);
    });

    it('POST /{id}/test: a receiver answering 200 → ok true, and GET shows it as lastTest', async () => {
      const res = await okJson<{ ok: boolean; httpStatus?: number; latencyMs: number }>(
        await t.call('POST', `/v1/endpoints/${first.endpointId}/test`),
        200,
      );
      expect(res).toMatchObject({ ok: true, httpStatus: 200 });
      expect(res.latencyMs).toEqual(expect.any(Number));
      const req = at('/ep-first').at(-1)!;
      expect(new Webhook(firstSecret).verify(req.body, req.headers as Record<string, string>)).toBeTruthy();
      expect((await view(first.endpointId)).lastTest).toMatchObject({ ok: true, httpStatus: 200 });
    });

    it('POST /{id}/rotate-secret: a new secret; later deliveries carry two signatures, old and new', async () => {
      const created = await okJson<{ endpoint: EndpointView; secret: string }>(
        await t.call('POST', '/v1/endpoints', { url: `${base}/rotating`, eventTypes: ['rotate.*'] }),
        201,
      );
      const id = created.endpoint.endpointId;
      const rotated = await okJson<{ endpoint: EndpointView; secret: string }>(
        await t.call('POST', `/v1/endpoints/${id}/rotate-secret`),
        200,
      );
      expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.endpoint.secretCount).toBe(2);
      expect(JSON.stringify(rotated.endpoint)).not.toContain('whsec_');
      expect((await view(id)).secretCount).toBe(2);

      const pub = await okJson<Published>(
        await t.call('POST', '/v1/events', { type: 'rotate.check', payload: { n: 1 } }),
        202,
      );
      expect(pub.deliveries.map((d) => d.endpointId)).toEqual([id]);
      await expect.poll(() => at('/rotating').length, { timeout: 20_000 }).toBe(1);
      const req = at('/rotating')[0]!;
      const sigs = String(req.headers['webhook-signature']).split(' ');
      expect(sigs).toHaveLength(2);
      for (const s of sigs) expect(s).toMatch(/^v1,/);
      const headers = req.headers as Record<string, string>;
      expect(new Webhook(rotated.secret).verify(req.body, headers)).toMatchObject({ data: { n: 1 } });
      expect(new Webhook(created.secret).verify(req.body, headers)).toMatchObject({ data: { n: 1 } });
      await t.call('DELETE', `/v1/endpoints/${id}`);
    });

    it('DELETE: 204; then GET, PATCH, DELETE and every action answer 404 and the list omits it', async () => {
      const created = await okJson<{ endpoint: EndpointView }>(
        await t.call('POST', '/v1/endpoints', { url: `${base}/doomed` }),
        201,
      );
      const id = created.endpoint.endpointId;
      const del = await t.call('DELETE', `/v1/endpoints/${id}`);
      expect(del.status).toBe(204);
      expect(await del.text()).toBe('');
      await expectProblem(await t.call('GET', `/v1/endpoints/${id}`), 404, 'endpoint_not_found');
      await expectProblem(
        await t.call('PATCH', `/v1/endpoints/${id}`, { description: 'x' }),
        404,
        'endpoint_not_found',
      );
      await expectProblem(await t.call('DELETE', `/v1/endpoints/${id}`), 404, 'endpoint_not_found');
      for (const action of ['pause', 'resume', 'test', 'rotate-secret'])
        await expectProblem(await t.call('POST', `/v1/endpoints/${id}/${action}`), 404, 'endpoint_not_found');
      expect((await list()).map((e) => e.endpointId)).not.toContain(id);
      expect(at('/doomed')).toHaveLength(0);
    });

    it('every endpoint action on an unknown id → 404 endpoint_not_found; on a malformed id → 400 validation_failed', async () => {
      for (const action of ['pause', 'resume', 'test', 'rotate-secret']) {
        await expectProblem(
          await t.call('POST', `/v1/endpoints/ep_ffffffffffffffffffffffff/${action}`),
          404,
          'endpoint_not_found',
        );
        await expectProblem(await t.call('POST', `/v1/endpoints/xx_1/${action}`), 400, 'validation_failed');
      }
    });
  });

  describe('events', () => {
    let t: TenantSession;
    let orders: EndpointView;
    beforeAll(async () => {
      t = await newTenant(app, 'Events Co');
      orders = (
        await okJson<{ endpoint: EndpointView }>(
          await t.call('POST', '/v1/endpoints', { url: `${base}/orders`, eventTypes: ['order.*'] }),
          201,
        )
      ).endpoint;
    });
    const byEvent = (eventId: string) => receiver.requests.filter((r) => r.headers['webhook-id'] === eventId);

    it('POST /v1/events: 202 with delivery ids; GET /v1/events lists it; GET /v1/events/{id} returns type, time and payload', async () => {
      const published = await okJson<Published>(
        await t.call('POST', '/v1/events', { type: 'order.paid', payload: { amount: 42, items: ['a'] } }),
        202,
      );
      expect(published.eventId).toMatch(/^msg_[a-f0-9]+$/);
      expect(published.type).toBe('order.paid');
      expect(Number.isNaN(Date.parse(published.occurredAt))).toBe(false);
      expect(published.deliveries).toEqual([
        { id: expect.stringMatching(/^dlv_/), endpointId: orders.endpointId },
      ]);
      expect(published.skipped).toEqual([]);
      await expect.poll(() => byEvent(published.eventId).length, { timeout: 20_000 }).toBe(1);

      const one = await okJson<Json>(await t.call('GET', `/v1/events/${published.eventId}`), 200);
      expect(one).toMatchObject({
        eventId: published.eventId,
        type: 'order.paid',
        occurredAt: published.occurredAt,
        payload: { amount: 42, items: ['a'] },
        deliveries: published.deliveries,
      });

      await expect
        .poll(
          async () =>
            (
              await okJson<{ data: Array<{ eventId: string }> }>(await t.call('GET', '/v1/events'), 200)
            ).data.map((e) => e.eventId),
          {
            timeout: 10_000,
          },
        )
        .toContain(published.eventId);
      const listed = (await okJson<{ data: Array<Json> }>(await t.call('GET', '/v1/events'), 200)).data.find(
        (e) => e.eventId === published.eventId,
      );
      expect(listed).toMatchObject({ type: 'order.paid', createdAt: expect.any(String) });
      const filtered = await okJson<{ data: Array<{ eventId: string }> }>(
        await t.call('GET', '/v1/events?type=order.paid'),
        200,
      );
      expect(filtered.data.map((e) => e.eventId)).toContain(published.eventId);
      const other = await okJson<{ data: Array<{ eventId: string }> }>(
        await t.call('GET', '/v1/events?type=invoice.paid'),
        200,
      );
      expect(other.data.map((e) => e.eventId)).not.toContain(published.eventId);
      await expectProblem(await t.call('GET', '/v1/events?limit=0'), 400, 'validation_failed');
      await expectProblem(await t.call('GET', '/v1/events?limit=many'), 400, 'validation_failed');
    });

    it('event-type filter: order.* matches order.paid, not invoice.paid, order or orders.paid (read back through the events API)', async () => {
      const matched = await okJson<Published>(
        await t.call('POST', '/v1/events', { type: 'order.shipped', payload: {} }),
        202,
      );
      expect(matched.deliveries.map((d) => d.endpointId)).toEqual([orders.endpointId]);
      for (const type of ['invoice.paid', 'order', 'orders.paid']) {
        const missed = await okJson<Published>(
          await t.call('POST', '/v1/events', { type, payload: { type } }),
          202,
        );
        expect(missed.deliveries).toEqual([]);
        // Delivered or not, the event can be read back.
        expect(await okJson<Json>(await t.call('GET', `/v1/events/${missed.eventId}`), 200)).toMatchObject({
          type,
          payload: { type },
        });
      }
    });

    it('R-IDEMP: the same event id twice → identical 202 bodies and one delivery', async () => {
      const body = { id: 'evt-idem-1', type: 'order.created', payload: { n: 1 } };
      const a = await okJson<Published>(await t.call('POST', '/v1/events', body), 202);
      const b = await okJson<Published>(await t.call('POST', '/v1/events', body), 202);
      expect(b).toEqual(a);
      expect(a.eventId).toBe('evt-idem-1');
      expect(a.deliveries).toHaveLength(1);
      // A second publish with the same id and another payload is still the first event.
      const c = await okJson<Published>(
        await t.call('POST', '/v1/events', { ...body, payload: { n: 2 } }),
        202,
      );
      expect(c).toEqual(a);
      await expect.poll(() => byEvent('evt-idem-1').length, { timeout: 20_000 }).toBe(1);
      expect(JSON.parse(byEvent('evt-idem-1')[0]!.body)).toMatchObject({ data: { n: 1 } });
    });

    it('R-IDEMP: the same Idempotency-Key header twice → identical 202 bodies and one delivery', async () => {
      const a = await okJson<Published>(
        await t.call(
          'POST',
          '/v1/events',
          { type: 'order.created', payload: { k: 1 } },
          { 'idempotency-key': 'idem-key-1' },
        ),
        202,
      );
      const b = await okJson<Published>(
        await t.call(
          'POST',
          '/v1/events',
          { type: 'order.created', payload: { k: 1 } },
          { 'Idempotency-Key': 'idem-key-1' },
        ),
        202,
      );
      expect(b).toEqual(a);
      expect(a.eventId).toBe('idem-key-1');
      await expect.poll(() => byEvent('idem-key-1').length, { timeout: 20_000 }).toBe(1);
      await expectProblem(
        await t.call(
          'POST',
          '/v1/events',
          { type: 'order.created', payload: {} },
          { 'idempotency-key': 'has spaces in it' },
        ),
        400,
        'validation_failed',
      );
    });

    it('R-IDEMP: 10 concurrent identical requests → one answer, one delivery at the receiver', async () => {
      const body = { id: 'evt-burst-1', type: 'order.burst', payload: { burst: true } };
      const answers = await Promise.all(Array.from({ length: 10 }, () => t.call('POST', '/v1/events', body)));
      const parsed = await Promise.all(answers.map((r) => okJson<Published>(r, 202)));
      for (const p of parsed) expect(p).toEqual(parsed[0]);
      expect(parsed[0]!.deliveries).toHaveLength(1);
      await expect.poll(() => byEvent('evt-burst-1').length, { timeout: 20_000 }).toBe(1);
      // Give any duplicate time to show up.
      await delay(1500);
      expect(byEvent('evt-burst-1')).toHaveLength(1);
      expect(byEvent('evt-idem-1')).toHaveLength(1);
      expect(byEvent('idem-key-1')).toHaveLength(1);
    });

    it('413 payload_too_large for a body over 256 KiB (by size or by declared length); nothing is published', async () => {
      const big = { id: 'evt-too-big', type: 'order.big', payload: { blob: 'x'.repeat(260 * 1024) } };
      await expectProblem(await t.call('POST', '/v1/events', big), 413, 'payload_too_large');
      await expectProblem(
        await t.call(
          'POST',
          '/v1/events',
          { type: 'order.small', payload: {} },
          { 'content-length': String(10 * 1024 * 1024) },
        ),
        413,
        'payload_too_large',
      );
      await expectProblem(await t.call('GET', '/v1/events/evt-too-big'), 404, 'event_not_found');
      // Just under the limit is fine.
      const fits = await okJson<Published>(
        await t.call('POST', '/v1/events', { type: 'misc.big', payload: { blob: 'y'.repeat(250 * 1024) } }),
        202,
      );
      expect(fits.deliveries).toEqual([]);
    });

    it('GET /v1/events/{id}: unknown → 404 event_not_found; malformed → 400 validation_failed', async () => {
      await expectProblem(await t.call('GET', '/v1/events/msg_doesnotexist'), 404, 'event_not_found');
      await expectProblem(
        await t.call('GET', `/v1/events/${encodeURIComponent('bad id!')}`),
        400,
        'validation_failed',
      );
    });
  });

  describe('deliveries, dead letters and replay', () => {
    interface Delivery {
      id: string;
      endpointId: string;
      eventId: string;
      eventType: string;
      status: string;
      round: number;
      attemptBudget: number;
      attemptCount: number;
      responseCode: number | null;
      lastError?: string;
      nextAttemptAt?: string;
      body?: string;
      attempts: Array<{
        kind: string;
        attempt: number;
        round: number;
        httpStatus?: number;
        code?: string;
        responseBody?: string;
      }>;
    }
    type Row = {
      id: string;
      endpointId: string;
      eventType: string;
      eventId: string;
      status: string;
      createdAt: string;
    };
    const RH = { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 };
    let t: TenantSession;
    const ep: Record<'ok' | 'fail' | 'wait' | 'block', string> = { ok: '', fail: '', wait: '', block: '' };
    const dl: Record<'ok' | 'f1' | 'f2' | 'f3' | 'wait' | 'block', string> = {
      ok: '',
      f1: '',
      f2: '',
      f3: '',
      wait: '',
      block: '',
    };

    const delivery = async (id: string) => okJson<Delivery>(await t.call('GET', `/v1/deliveries/${id}`), 200);
    const publishOne = async (type: string, payload: unknown = {}) => {
      const p = await okJson<Published>(await t.call('POST', '/v1/events', { type, payload }), 202);
      expect(p.deliveries).toHaveLength(1);
      return p.deliveries[0]!.id;
    };
    const rows = async (query = '') =>
      (await okJson<{ data: Row[] }>(await t.call('GET', `/v1/deliveries${query}`), 200)).data;

    beforeAll(async () => {
      t = await newTenant(app, 'Recovery Co');
      const make = async (path: string, preset: string, type: string, policy?: Json) =>
        (
          await okJson<{ endpoint: EndpointView }>(
            await t.call('POST', '/v1/endpoints', {
              url: `${base}${path}`,
              preset,
              eventTypes: [type],
              ...(policy ? { policy } : {}),
            }),
            201,
          )
        ).endpoint.endpointId;
      [ep.ok, ep.fail, ep.wait, ep.block] = await Promise.all([
        make('/rec-ok', 'standard', 'rec.ok'),
        make('/dl-fail', 'railhook', 'rec.fail', RH),
        make('/dl-wait', 'railhook', 'rec.wait', { maxAttempts: 2, retryDelays: [3600], timeoutSeconds: 5 }),
        make('/dl-block', 'railhook', 'rec.block', RH),
      ]);
      dl.ok = await publishOne('rec.ok', { n: 'ok' });
      dl.f1 = await publishOne('rec.fail', { n: 1 });
      dl.f2 = await publishOne('rec.fail', { n: 2 });
      dl.f3 = await publishOne('rec.fail', { n: 3 });
      dl.wait = await publishOne('rec.wait');
      dl.block = await publishOne('rec.block');
      // Tolerates the moment before the event workflow has started the delivery (see the read-after-202 test).
      const settled = (id: string, ok: (d: Delivery) => boolean) =>
        waitUntil(`delivery ${id}`, async () => {
          const res = await t.call('GET', `/v1/deliveries/${id}`);
          return res.status === 200 && ok((await res.json()) as Delivery);
        });
      await Promise.all([
        settled(dl.ok, (d) => d.status === 'succeeded'),
        ...[dl.f1, dl.f2, dl.f3, dl.block].map((id) => settled(id, (d) => d.status === 'exhausted')),
        settled(dl.wait, (d) => d.status === 'pending' && d.attemptCount === 1),
      ]);
      expect(
        (await okJson<EndpointView>(await t.call('POST', `/v1/endpoints/${ep.block}/pause`), 200)).health
          .status,
      ).toBe('paused');
      // Let visibility index every status before the list routes read it.
      await waitUntil(
        'visibility',
        async () =>
          (await rows()).length === 6 &&
          (await rows('?status=exhausted')).length === 4 &&
          (await rows('?status=succeeded')).length === 1 &&
          (await rows('?status=pending')).length === 1,
      );
    });

    it('GET /v1/deliveries/{id}: the delivery with its body and attempts newest first; 404 unknown, 400 malformed', async () => {
      const ok = await delivery(dl.ok);
      expect(ok).toMatchObject({
        id: dl.ok,
        endpointId: ep.ok,
        eventType: 'rec.ok',
        status: 'succeeded',
        attemptCount: 1,
        responseCode: 200,
      });
      expect(JSON.parse(ok.body!)).toMatchObject({ type: 'rec.ok', data: { n: 'ok' } });
      const failed = await delivery(dl.f1);
      expect(failed).toMatchObject({
        status: 'exhausted',
        attemptCount: 1,
        responseCode: 500,
        lastError: 'http_500',
      });
      expect(failed.attempts[0]).toMatchObject({
        kind: 'attempt',
        attempt: 1,
        httpStatus: 500,
        code: 'http_500',
        responseBody: 'boom',
      });
      await expectProblem(
        await t.call('GET', '/v1/deliveries/dlv_doesnotexist0000000000'),
        404,
        'delivery_not_found',
      );
      await expectProblem(await t.call('GET', `/v1/deliveries/${ep.ok}`), 400, 'validation_failed');
      await expectProblem(await t.call('GET', '/v1/deliveries/dlv_bad!id'), 400, 'validation_failed');
    });

    it('GET /v1/deliveries: newest first, filtered by endpoint, status, event type and time; bad filters → 400', async () => {
      const all = await rows();
      const mine = [dl.ok, dl.f1, dl.f2, dl.f3, dl.wait, dl.block];
      expect(all.map((r) => r.id).sort()).toEqual([...mine].sort());
      // Newest first by creation time.
      const times = all.map((r) => Date.parse(r.createdAt));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(all.find((r) => r.id === dl.f1)).toMatchObject({
        endpointId: ep.fail,
        eventType: 'rec.fail',
        status: 'exhausted',
      });

      expect((await rows(`?endpointId=${ep.fail}`)).map((r) => r.id).sort()).toEqual(
        [dl.f1, dl.f2, dl.f3].sort(),
      );
      expect((await rows('?status=succeeded')).map((r) => r.id)).toEqual([dl.ok]);
      expect((await rows('?eventType=rec.wait')).map((r) => r.id)).toEqual([dl.wait]);
      expect(await rows('?limit=2')).toHaveLength(2);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      expect(await rows(`?since=${encodeURIComponent(future)}`)).toEqual([]);
      expect((await rows(`?until=${encodeURIComponent(future)}`)).length).toBe(6);

      await expectProblem(await t.call('GET', '/v1/deliveries?status=bogus'), 400, 'validation_failed');
      await expectProblem(await t.call('GET', '/v1/deliveries?endpointId=nope'), 400, 'validation_failed');
      await expectProblem(await t.call('GET', '/v1/deliveries?limit=0'), 400, 'validation_failed');
      await expectProblem(await t.call('GET', '/v1/deliveries?since=yesterday'), 400, 'validation_failed');
      await expectProblem(
        await t.call(
          'GET',
          `/v1/deliveries?since=${encodeURIComponent(future)}&until=${encodeURIComponent(new Date().toISOString())}`,
        ),
        400,
        'invalid_window',
      );
    });

    it('GET /v1/deliveries/recent: at most 25 newest, each with response code, attempts and body', async () => {
      const recent = (await okJson<{ data: Delivery[] }>(await t.call('GET', '/v1/deliveries/recent'), 200))
        .data;
      expect(recent.length).toBe(6);
      const ok = recent.find((d) => d.id === dl.ok)!;
      expect(ok).toMatchObject({ eventType: 'rec.ok', responseCode: 200, attemptCount: 1 });
      expect(JSON.parse(ok.body!)).toMatchObject({ data: { n: 'ok' } });
      expect(recent.find((d) => d.id === dl.f2)!.attempts).toHaveLength(1);
    });

    it('GET /v1/dead-letters: endpoint, event type, attempt count and last error; filter by endpoint; bad filter → 400', async () => {
      type DeadLetter = {
        id: string;
        endpointId: string;
        eventType: string;
        attemptCount: number;
        lastError: string | null;
        retryable: boolean;
      };
      const list = (await okJson<{ data: DeadLetter[] }>(await t.call('GET', '/v1/dead-letters'), 200)).data;
      expect(list.map((d) => d.id).sort()).toEqual([dl.f1, dl.f2, dl.f3, dl.block].sort());
      expect(list.find((d) => d.id === dl.f1)).toEqual({
        id: dl.f1,
        endpointId: ep.fail,
        eventType: 'rec.fail',
        eventId: expect.any(String),
        createdAt: expect.any(String),
        attemptCount: 1,
        lastError: 'http_500',
        retryable: true,
      });
      const scoped = (
        await okJson<{ data: DeadLetter[] }>(
          await t.call('GET', `/v1/dead-letters?endpointId=${ep.block}`),
          200,
        )
      ).data;
      expect(scoped.map((d) => d.id)).toEqual([dl.block]);
      await expectProblem(await t.call('GET', '/v1/dead-letters?endpointId=bad'), 400, 'validation_failed');
      await expectProblem(await t.call('GET', '/v1/dead-letters?limit=501'), 400, 'validation_failed');
    });

    it('GET /v1/replay/failures/preview: blocked (paused endpoint), waiting (retry scheduled), ready', async () => {
      type Item = { id: string; reason?: string; status: string };
      const g = await okJson<{
        blocked: Item[];
        waiting: Item[];
        ready: Item[];
        counts: Record<string, number>;
        truncated: boolean;
      }>(await t.call('GET', '/v1/replay/failures/preview'), 200);
      expect(g.blocked.map((i) => i.id)).toEqual([dl.block]);
      expect(g.blocked[0]!.reason).toBe('endpoint_paused');
      expect(g.waiting.map((i) => i.id)).toEqual([dl.wait]);
      expect(g.ready.map((i) => i.id).sort()).toEqual([dl.f1, dl.f2, dl.f3].sort());
      expect(g.counts).toEqual({ blocked: 1, waiting: 1, ready: 3 });
      expect(g.truncated).toBe(false);
      const scoped = await okJson<{ ready: Item[]; blocked: Item[] }>(
        await t.call('GET', `/v1/replay/failures/preview?endpointId=${ep.wait}`),
        200,
      );
      expect(scoped.ready).toEqual([]);
      expect(scoped.blocked).toEqual([]);
      await expectProblem(
        await t.call('GET', '/v1/replay/failures/preview?endpointId=x'),
        400,
        'validation_failed',
      );
    });

    it('POST /v1/replay/deliveries/{id}: 202 opens a new round; pending → 409 delivery_in_progress; unknown → 404; malformed → 400', async () => {
      const before = await delivery(dl.f3);
      const replayed = await okJson<Delivery>(await t.call('POST', `/v1/replay/deliveries/${dl.f3}`), 202);
      expect(replayed.id).toBe(dl.f3);
      expect(replayed.round).toBe(before.round + 1);
      await expectProblem(
        await t.call('POST', `/v1/replay/deliveries/${dl.wait}`),
        409,
        'delivery_in_progress',
      );
      await expectProblem(
        await t.call('POST', '/v1/replay/deliveries/dlv_doesnotexist0000000000'),
        404,
        'delivery_not_found',
      );
      await expectProblem(
        await t.call('POST', `/v1/replay/deliveries/${t.tenantId}`),
        400,
        'validation_failed',
      );
    });

    it('POST /v1/dead-letters/{id}/retry: 202 back to pending with 3 more attempts; not a dead letter → 409; unknown → 404; malformed → 400', async () => {
      const before = await delivery(dl.f1);
      const retried = await okJson<Delivery>(await t.call('POST', `/v1/dead-letters/${dl.f1}/retry`), 202);
      expect(retried.id).toBe(dl.f1);
      expect(['pending', 'processing']).toContain(retried.status);
      expect(retried.attemptBudget).toBe(before.attemptBudget + 3);
      await expectProblem(
        await t.call('POST', `/v1/dead-letters/${dl.wait}/retry`),
        409,
        'not_a_dead_letter',
      );
      await expectProblem(await t.call('POST', `/v1/dead-letters/${dl.ok}/retry`), 409, 'not_a_dead_letter');
      await expectProblem(
        await t.call('POST', '/v1/dead-letters/dlv_doesnotexist0000000000/retry'),
        404,
        'delivery_not_found',
      );
      await expectProblem(
        await t.call('POST', `/v1/dead-letters/${ep.fail}/retry`),
        400,
        'validation_failed',
      );
      // The same delivery tries again at once (and the receiver still says 500).
      await expect
        .poll(async () => (await delivery(dl.f1)).attemptCount, { timeout: 20_000 })
        .toBeGreaterThan(1);
    });

    it('POST /v1/dead-letters/retry: 202 with what was retried and why the rest was not; bad bodies → 400', async () => {
      const res = await okJson<{ retried: string[]; failed: Array<{ id: string; code: string }> }>(
        await t.call('POST', '/v1/dead-letters/retry', {
          ids: [dl.f2, dl.wait, 'dlv_doesnotexist0000000000', dl.f2],
        }),
        202,
      );
      expect(res.retried).toEqual([dl.f2]);
      expect(res.failed).toEqual(
        expect.arrayContaining([
          { id: dl.wait, code: 'not_a_dead_letter' },
          { id: 'dlv_doesnotexist0000000000', code: 'delivery_not_found' },
        ]),
      );
      expect(res.failed).toHaveLength(2);
      for (const bad of [
        {},
        { ids: [] },
        { all: false },
        { ids: ['nope'] },
        { ids: [dl.f3], all: true },
        { all: true, extra: 1 },
      ])
        await expectProblem(await t.call('POST', '/v1/dead-letters/retry', bad), 400, 'validation_failed');
    });

    it('POST /v1/replay/failures: 202 listing replayed, blocked and waiting deliveries; bad scope → 400', async () => {
      const res = await okJson<{
        replayed: string[];
        blocked: string[];
        waiting: string[];
        failed: unknown[];
      }>(await t.call('POST', '/v1/replay/failures'), 202);
      expect(res.blocked).toContain(dl.block);
      expect(res.waiting).toContain(dl.wait);
      expect(res.replayed).not.toContain(dl.block);
      expect(res.replayed).not.toContain(dl.wait);
      await expectProblem(await t.call('POST', '/v1/replay/failures?endpointId=x'), 400, 'validation_failed');
    });

    it('POST /v1/dead-letters/retry {all: true}: 202; takes only dead letters', async () => {
      const all = await okJson<{ retried: string[]; failed: Array<{ id: string; code: string }> }>(
        await t.call('POST', '/v1/dead-letters/retry', { all: true }),
        202,
      );
      expect(all.retried).toContain(dl.block);
      expect(all.retried).not.toContain(dl.wait);
      expect(all.retried).not.toContain(dl.ok);
    });

    it('POST /v1/replay/window: 202 with no body; unknown endpoint → 404; since after until → 400 invalid_window; bad bodies → 400', async () => {
      const res = await t.call('POST', '/v1/replay/window', { endpointId: ep.fail });
      expect(res.status).toBe(202);
      expect(await res.text()).toBe('');
      const since = new Date(Date.now() - 3_600_000).toISOString();
      expect(
        (
          await t.call('POST', '/v1/replay/window', {
            endpointId: ep.fail,
            since,
            until: new Date().toISOString(),
          })
        ).status,
      ).toBe(202);
      await expectProblem(
        await t.call('POST', '/v1/replay/window', { endpointId: 'ep_ffffffffffffffffffffffff' }),
        404,
        'endpoint_not_found',
      );
      await expectProblem(
        await t.call('POST', '/v1/replay/window', {
          endpointId: ep.fail,
          since: new Date().toISOString(),
          until: since,
        }),
        400,
        'invalid_window',
      );
      for (const bad of [
        {},
        { endpointId: 'x' },
        { endpointId: ep.fail, since: 'yesterday' },
        { endpointId: ep.fail, extra: 1 },
      ])
        await expectProblem(await t.call('POST', '/v1/replay/window', bad), 400, 'validation_failed');
      // Both background jobs finish (and nothing is left running when the worker stops).
      const jobs: string[] = [];
      await expect
        .poll(
          async () => {
            jobs.length = 0;
            const query = `WorkflowType = '${REPLAY_WINDOW_WORKFLOW}' AND HeraldTenant = '${t.tenantId}'`;
            for await (const wf of w.client.workflow.list({ query })) jobs.push(wf.workflowId);
            return jobs.length;
          },
          { timeout: 10_000 },
        )
        .toBe(2);
      await Promise.all(jobs.map((id) => w.client.workflow.getHandle(id).result()));
    });

    it('a delivery id from a 202 can be read at once: GET /v1/deliveries/{id} never answers 404 for it', async () => {
      const published = await okJson<Published>(
        await t.call('POST', '/v1/events', { type: 'rec.ok', payload: { n: 'now' } }),
        202,
      );
      const id = published.deliveries[0]!.id;
      const res = await t.call('GET', `/v1/deliveries/${id}`);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(((await res.json()) as Delivery).id).toBe(id);
    });
  });

  describe('documents and unknown routes', () => {
    it('/openapi.json is an OpenAPI 3.1 document listing every path', async () => {
      const doc = await okJson<{
        openapi: string;
        paths: Record<string, Record<string, unknown>>;
        components: Json;
      }>(await app.request('/openapi.json'), 200);
      expect(doc.openapi).toBe('3.1.0');
      const paths = Object.keys(doc.paths);
      for (const p of [
        '/v1/admin/tenants',
        '/v1/admin/tenants/{tenantId}',
        '/v1/admin/tenants/{tenantId}/keys',
        '/v1/admin/tenants/{tenantId}/subscription',
        '/v1/endpoints',
        '/v1/endpoints/{id}',
        '/v1/endpoints/{id}/pause',
        '/v1/endpoints/{id}/resume',
        '/v1/endpoints/{id}/test',
        '/v1/endpoints/{id}/rotate-secret',
        '/v1/events',
        '/v1/events/{eventId}',
        '/v1/deliveries',
        '/v1/deliveries/recent',
        '/v1/deliveries/{id}',
        '/v1/dead-letters',
        '/v1/dead-letters/retry',
        '/v1/dead-letters/{id}/retry',
        '/v1/replay/deliveries/{id}',
        '/v1/replay/failures/preview',
        '/v1/replay/failures',
        '/v1/replay/window',
      ])
        expect(paths).toContain(p);
      expect(Object.keys(doc.paths['/v1/endpoints/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
      expect(Object.keys(doc.paths['/v1/endpoints']!).sort()).toEqual(['get', 'post']);
      expect(JSON.stringify(doc.components)).toContain('bearer');
    });

    it('/docs serves an HTML page pointing at the document', async () => {
      const res = await app.request('/docs');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('/openapi.json');
    });

    it('an unknown route → 404 not_found problem (after authentication under /v1)', async () => {
      await expectProblem(await app.request('/nope'), 404, 'not_found');
      await expectProblem(await app.request('/v2/endpoints'), 404, 'not_found');
      await expectProblem(await app.request('/v1/nope'), 401, 'unauthorized');
      const t = await newTenant(app, 'Lost');
      await expectProblem(await t.call('GET', '/v1/nope'), 404, 'not_found');
      await expectProblem(await t.call('GET', '/v1/endpoints/ep_1/unknown-action'), 404, 'not_found');
      await expectProblem(
        await t.call('PUT', '/v1/endpoints', { url: 'https://example.com/x' }),
        404,
        'not_found',
      );
      expect((await app.request('/healthz')).status).toBe(200);
    });
  });
});

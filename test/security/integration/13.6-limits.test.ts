import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import type { Config } from '../../../src/config.js';
import { dataConverterFor } from '../../../src/temporal/data-converter.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';
import { TEST_OPERATOR_KEY, newTenant } from '../../helpers/api.js';
import { startDevWorker } from '../../helpers/dev-worker.js';
import { freePort } from '../../helpers/ports.js';
import { Receiver } from '../../helpers/receiver.js';

/**
 * Issue 13.6, limits against abuse and amplification, on the dev server: a per-tenant
 * publish rate (429 + Retry-After), caps on targets per publish and endpoints per tenant,
 * made-up API keys answered without a Temporal query each, a Temporal outage answered 503
 * (not 401), and an operator route that revokes an API key at once.
 */

const PROBLEM = /^application\/problem\+json/;
type Json = Record<string, unknown>;

async function problemOf(res: Response, status: number, code: string): Promise<Json> {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(status);
  expect(res.headers.get('content-type'), text.slice(0, 300)).toMatch(PROBLEM);
  const body = JSON.parse(text) as Json;
  expect(body).toMatchObject({ status, code });
  return body;
}

/** A well-formed key for a tenant nobody created. */
const madeUpKey = () =>
  `hk.tn_${randomBytes(12).toString('hex')}.key_${randomBytes(6).toString('hex')}.${randomBytes(24).toString('base64url')}`;

const operator = { authorization: `Bearer ${TEST_OPERATOR_KEY}` };

describe('13.6 limits against abuse and amplification (dev server)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  const receiver = new Receiver((_req, _i, res) => res.writeHead(200).end('ok'));
  let base: string;
  const extra: Array<() => Promise<void>> = [];
  const appWith = (overrides: Partial<Config>) =>
    createApp({ client: w.client, config: { ...w.config, ...overrides } });

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
  });
  afterAll(async () => {
    for (const close of extra) await close();
    await receiver.stop();
    await w?.stop();
  });

  it('13.6: publish is rate limited per tenant: 429 rate_limited with Retry-After, other tenants unaffected', async () => {
    const app = appWith({ HERALD_PUBLISH_RATE_PER_SECOND: 0.2, HERALD_PUBLISH_BURST: 3 });
    const [a, b] = await Promise.all([newTenant(app, 'Rate A'), newTenant(app, 'Rate B')]);
    const publish = (s: typeof a, i: number) =>
      s.call('POST', '/v1/events', { type: 'rate.test', payload: { i } });
    for (let i = 0; i < 3; i++) expect((await publish(a, i)).status).toBe(202);
    const refused = await publish(a, 3);
    const retryAfter = refused.headers.get('retry-after');
    const body = await problemOf(refused, 429, 'rate_limited');
    // 0.2 tokens a second: the next one is 5 s away.
    expect(retryAfter).toBe('5');
    expect(body.retryAfterSeconds).toBe(5);
    // Another tenant has its own bucket.
    expect((await publish(b, 0)).status).toBe(202);
  });

  it('13.6: a publish naming more targets than HERALD_MAX_TARGETS_PER_PUBLISH is refused: 400 too_many_targets', async () => {
    const targets = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ url: `${base}/t${i}`, secrets: [generateSecret()] }));
    // The default cap is 20.
    const t = await newTenant(appWith({}), 'Targets Co');
    const over = await problemOf(
      await t.call('POST', '/v1/events', { type: 'fan.out', payload: {}, targets: targets(21) }),
      400,
      'too_many_targets',
    );
    expect(over).toMatchObject({ maxTargets: 20, path: 'targets' });
    // And the operator's own cap.
    const small = appWith({ HERALD_MAX_TARGETS_PER_PUBLISH: 2 });
    const s = await newTenant(small, 'Small Targets Co');
    await problemOf(
      await s.call('POST', '/v1/events', { type: 'fan.out', payload: {}, targets: targets(3) }),
      400,
      'too_many_targets',
    );
    expect(
      (await s.call('POST', '/v1/events', { type: 'fan.out', payload: {}, targets: targets(2) })).status,
    ).toBe(202);
  });

  it('13.6: a tenant has at most HERALD_MAX_ENDPOINTS_PER_TENANT endpoints, even when creates race: 409 endpoint_limit_reached', async () => {
    const app = appWith({ HERALD_MAX_ENDPOINTS_PER_TENANT: 2 });
    const t = await newTenant(app, 'Endpoint Cap Co');
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.call('POST', '/v1/endpoints', { url: `${base}/ep${i}` })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 409, 409, 409]);
    const refused = answers.find((r) => r.status === 409)!;
    expect(await problemOf(refused, 409, 'endpoint_limit_reached')).toMatchObject({ maxEndpoints: 2 });
    await problemOf(
      await t.call('POST', '/v1/endpoints', { url: `${base}/later` }),
      409,
      'endpoint_limit_reached',
    );
    // Another tenant is not affected.
    const other = await newTenant(app, 'Endpoint Cap Other');
    expect((await other.call('POST', '/v1/endpoints', { url: `${base}/other` })).status).toBe(201);
  });

  it('13.6: the same made-up API key, sent 25 times, costs at most one Temporal query; a new tenant key works at once', async () => {
    // A client of its own whose gRPC calls are counted.
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    extra.push(() => connection.close());
    const calls: string[] = [];
    const real = connection.workflowService;
    Object.defineProperty(connection, 'workflowService', {
      value: new Proxy(real, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if (typeof v !== 'function') return v;
          return (...args: unknown[]) => {
            calls.push(String(prop));
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }),
    });
    const client = new Client({
      connection,
      namespace: 'default',
      dataConverter: dataConverterFor(w.config),
    });
    const app = createApp({ client, config: w.config });

    const key = madeUpKey();
    const get = (k: string) => app.request('/v1/endpoints', { headers: { authorization: `Bearer ${k}` } });
    for (let i = 0; i < 20; i++) await problemOf(await get(key), 401, 'unauthorized');
    await Promise.all(Array.from({ length: 5 }, async () => problemOf(await get(key), 401, 'unauthorized')));
    expect(calls.filter((c) => c === 'queryWorkflow').length).toBeLessThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(1);

    // A tenant created afterwards has a random id no one could have cached as unknown: its
    // key (and a second key issued for it) are accepted at once.
    const t = await newTenant(app, 'Created After');
    expect((await t.call('GET', '/v1/endpoints')).status).toBe(200);
    const issued = await app.request(`/v1/admin/tenants/${t.tenantId}/keys`, {
      method: 'POST',
      headers: operator,
    });
    const { apiKey } = (await issued.json()) as { apiKey: string };
    expect((await get(apiKey)).status).toBe(200);
  });

  it('13.6: when Temporal cannot be reached, a well-formed key gets 503 temporal_unavailable, not 401, every time', async () => {
    // Nothing listens on this port; no retries, so the failure is immediate.
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
    extra.push(() => connection.close());
    const client = new Client({ connection, namespace: 'default' });
    const app = createApp({ client, config: w.config });
    const key = madeUpKey();
    for (let i = 0; i < 3; i++) {
      const res = await app.request('/v1/endpoints', { headers: { authorization: `Bearer ${key}` } });
      await problemOf(res, 503, 'temporal_unavailable');
    }
  });

  it('13.6: DELETE /v1/admin/tenants/{id}/keys/{keyId} revokes a key: 401 at once, the other key still works', async () => {
    const app = appWith({});
    const t = await newTenant(app, 'Revoke Co');
    const issued = await app.request(`/v1/admin/tenants/${t.tenantId}/keys`, {
      method: 'POST',
      headers: operator,
    });
    const second = (await issued.json()) as { keyId: string; apiKey: string };
    const use = (k: string) => app.request('/v1/endpoints', { headers: { authorization: `Bearer ${k}` } });
    // Both keys in use: the key list is cached in this process.
    expect((await use(t.apiKey)).status).toBe(200);
    expect((await use(second.apiKey)).status).toBe(200);

    const revoke = (tenantId: string, keyId: string) =>
      app.request(`/v1/admin/tenants/${tenantId}/keys/${keyId}`, { method: 'DELETE', headers: operator });
    const res = await revoke(t.tenantId, second.keyId);
    expect(res.status).toBe(200);
    const view = (await res.json()) as {
      apiKeys: Array<{ keyId: string; revokedAt?: number; hash?: string }>;
    };
    const revoked = view.apiKeys.find((k) => k.keyId === second.keyId);
    expect(revoked?.revokedAt).toBeTypeOf('number');
    expect(view.apiKeys.every((k) => k.hash === undefined)).toBe(true);

    await problemOf(await use(second.apiKey), 401, 'unauthorized');
    expect((await use(t.apiKey)).status).toBe(200);
    // Again: nothing changes, the first revocation time stays.
    const again = (await (await revoke(t.tenantId, second.keyId)).json()) as typeof view;
    expect(again.apiKeys.find((k) => k.keyId === second.keyId)?.revokedAt).toBe(revoked?.revokedAt);

    await problemOf(await revoke(t.tenantId, 'key_00000000'), 404, 'key_not_found');
    await problemOf(await revoke('tn_doesnotexist', 'key_00000000'), 404, 'tenant_not_found');
    await problemOf(
      await app.request(`/v1/admin/tenants/${t.tenantId}/keys/${second.keyId}`, { method: 'DELETE' }),
      401,
      'unauthorized',
    );
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Json> };
    expect(Object.keys(doc.paths['/v1/admin/tenants/{tenantId}/keys/{keyId}'] ?? {})).toContain('delete');
  });
});

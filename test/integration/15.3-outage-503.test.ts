import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { TEST_OPERATOR_KEY } from '../helpers/api.js';
import { freePort } from '../helpers/ports.js';
import { devServerClients, testConfig } from '../helpers/temporal.js';

/**
 * Issue 15 step 3: when Temporal cannot answer, the API says so (503 temporal_unavailable,
 * with Retry-After), never 401 (a client drops a key it is told is bad) nor 404 (an operator
 * concludes the tenant is gone). Only a Temporal that answers "no such workflow" is a 401 or 404.
 */
type Json = Record<string, unknown>;

async function problemOf(res: Response, status: number, code: string): Promise<Json> {
  const text = await res.text();
  expect({ status: res.status, text: text.slice(0, 300) }).toMatchObject({ status });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Json;
  expect(body).toMatchObject({ status, code });
  return body;
}

const madeUpKey = () =>
  `hk.tn_${randomBytes(12).toString('hex')}.key_${randomBytes(6).toString('hex')}.${randomBytes(24).toString('base64url')}`;
const operator = { authorization: `Bearer ${TEST_OPERATOR_KEY}`, 'content-type': 'application/json' };
const tenantId = () => `tn_${randomBytes(12).toString('hex')}`;

describe('15.3 a Temporal outage is 503 temporal_unavailable, never 401 or 404', () => {
  let t: Awaited<ReturnType<typeof devServerClients>>;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    t = await devServerClients();
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await t?.close();
  });

  /** An app over a Temporal that cannot answer: nothing listens on the port. */
  async function appWithoutTemporal() {
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
    closers.push(() => connection.close());
    return createApp({ client: new Client({ connection, namespace: 'default' }), config: testConfig() });
  }

  it('15.3: the operator routes answer 503, not 404 tenant_not_found, when Temporal is unreachable', async () => {
    const app = await appWithoutTemporal();
    const id = tenantId();
    const calls: Array<[string, string, unknown]> = [
      ['GET', `/v1/admin/tenants/${id}`, undefined],
      ['POST', `/v1/admin/tenants/${id}/keys`, undefined],
      ['DELETE', `/v1/admin/tenants/${id}/keys/key_0123abcd`, undefined],
      ['PUT', `/v1/admin/tenants/${id}/subscription`, { active: false }],
    ];
    for (const [method, path, body] of calls) {
      const res = await app.request(path, {
        method,
        headers: operator,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await problemOf(res, 503, 'temporal_unavailable');
    }
  });

  it('15.3: a namespace Temporal does not serve is 503 for a well-formed key (not 401, not 500), with Retry-After', async () => {
    // Temporal answers, but cannot say anything about the tenant: the key may well be valid.
    const client = new Client({
      connection: t.client.connection,
      namespace: `herald-missing-${randomBytes(4).toString('hex')}`,
    });
    const app = createApp({ client, config: testConfig() });
    for (let i = 0; i < 2; i++) {
      const res = await app.request('/v1/endpoints', { headers: { authorization: `Bearer ${madeUpKey()}` } });
      expect(res.headers.get('retry-after')).toBe('1');
      await problemOf(res, 503, 'temporal_unavailable');
    }
    await problemOf(
      await app.request(`/v1/admin/tenants/${tenantId()}`, { headers: operator }),
      503,
      'temporal_unavailable',
    );
  });

  it('15.3: a Temporal that answers "no such tenant" is still 401 for the key and 404 for the operator', async () => {
    const app = createApp({ client: t.client, config: testConfig() });
    await problemOf(
      await app.request('/v1/endpoints', { headers: { authorization: `Bearer ${madeUpKey()}` } }),
      401,
      'unauthorized',
    );
    await problemOf(
      await app.request(`/v1/admin/tenants/${tenantId()}`, { headers: operator }),
      404,
      'tenant_not_found',
    );
  });
});

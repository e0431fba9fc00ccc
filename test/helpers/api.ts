import { expect } from 'vitest';
import type { createApp } from '../../src/api/app.js';

type App = ReturnType<typeof createApp>;
export const TEST_OPERATOR_KEY = 'op_test_key_0123456789abcdef';

export interface TenantSession {
  tenantId: string;
  apiKey: string;
  /** `app.request` with the tenant's key and JSON body. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** Creates a tenant through the admin API and returns a session with its API key. */
export async function newTenant(
  app: App | { request: (path: string, init?: RequestInit) => Promise<Response> | Response },
  name = 'Acme',
  billingEmail?: string,
): Promise<TenantSession> {
  const res = await app.request('/v1/admin/tenants', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_OPERATOR_KEY}` },
    body: JSON.stringify({ name, ...(billingEmail ? { billingEmail } : {}) }),
  });
  if (res.status !== 201) throw new Error(`tenant not created: ${res.status} ${await res.text()}`);
  const { tenant, apiKey } = (await res.json()) as { tenant: { tenantId: string }; apiKey: string };
  return {
    tenantId: tenant.tenantId,
    apiKey,
    call: async (method, path, body, headers = {}) =>
      app.request(path, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

/** The same over real HTTP, for a running service. */
export function httpApp(baseUrl: string) {
  return { request: (path: string, init?: RequestInit) => fetch(`${baseUrl}${path}`, init) };
}

/** The response's JSON body once its status is `status` (the body is the failure message if not). */
export async function jsonOf<T>(res: Response | Promise<Response>, status: number): Promise<T> {
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBe(status);
  return JSON.parse(text) as T;
}

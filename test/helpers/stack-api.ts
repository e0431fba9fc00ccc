import { inject } from 'vitest';
import { httpApp, type TenantSession } from './api.js';

/** The stack project's API, operator key and codec, from its global setup. */
export function stackInfo() {
  return inject('stack');
}

/** A tenant on the stack's API, over real HTTP. */
export async function stackTenant(name: string): Promise<TenantSession> {
  const s = stackInfo();
  const app = httpApp(s.apiUrl);
  const res = await app.request('/v1/admin/tenants', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.operatorKey}` },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 201) throw new Error(`tenant not created: ${res.status} ${await res.text()}`);
  const { tenant, apiKey } = (await res.json()) as { tenant: { tenantId: string }; apiKey: string };
  return {
    tenantId: tenant.tenantId,
    apiKey,
    call: (method, path, body, headers = {}) =>
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

/** Body of a response with the expected status, or a failure that shows what came back. */
export async function expectJson<T>(res: Response | Promise<Response>, status: number): Promise<T> {
  const r = await res;
  const text = await r.text();
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${text}`);
  return JSON.parse(text) as T;
}

import type { ProblemView } from './layout.js';

/** Herald's own API, called in the same process (no network): the app's fetch. */
export type ApiFetch = (req: Request) => Response | Promise<Response>;

export type ApiResult<T> =
  { ok: true; status: number; data: T } | { ok: false; status: number; problem: ProblemView };

/**
 * Every portal action is one call to the HTTP API as the signed-in tenant, so the portal
 * shares the API's validation messages, quotas and tenant scoping by construction.
 */
export async function callApi<T = Record<string, unknown>>(
  fetch: ApiFetch,
  bearer: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResult<T>> {
  const res = await fetch(
    new Request(`http://herald.internal${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.ok) return { ok: true, status: res.status, data: (json ?? {}) as T };
  const p = (json ?? {}) as Partial<ProblemView> & { errors?: ProblemView['errors'] };
  return {
    ok: false,
    status: res.status,
    problem: {
      title: p.title ?? `HTTP ${res.status}`,
      detail: p.detail,
      code: p.code,
      errors: Array.isArray(p.errors) ? p.errors : undefined,
    },
  };
}

/** Query string from the defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

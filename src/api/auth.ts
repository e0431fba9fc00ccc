import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config.js';
import type { Directory } from '../store/directory.js';
import { errorFields, log } from '../observability/log.js';
import { hashSecret, parseApiKey, sameHash, sameSecret } from './keys.js';
import { fail, problem } from './problem.js';
import { isSessionToken, type PortalTokens } from '../portal/tokens.js';

export type TenantEnv = { Variables: { tenantId: string } };

function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return m?.[1];
}

/**
 * The tenant's active keys; none for a tenant Temporal does not know. Anything else that
 * keeps Temporal from telling (unreachable, timed out, a namespace it does not serve) says
 * nothing about the key: it is a 503, and the client keeps a key a 401 would make it drop.
 */
async function keysOf(directory: Directory, tenantId: string, c: Context) {
  try {
    return await directory.tenantKeys(tenantId);
  } catch (err) {
    log.error('API keys could not be read', { tenant: tenantId, ...errorFields(err) });
    c.header('retry-after', '1');
    return fail(503, 'temporal_unavailable', 'Temporal did not answer; retry the request');
  }
}

/** Tenants authenticate with `Authorization: Bearer <api key>`; only hashes are compared. */
export function tenantAuth(directory: Directory, portal?: PortalTokens): MiddlewareHandler<TenantEnv> {
  return async (c, next) => {
    const key = bearer(c.req.header('authorization'));
    // Issue 18: the portal calls this API in-process with its signed session in place of the
    // key (never read from a cookie, so a browser cannot be made to send it). The session
    // names the key that signed in, and ends when that key is revoked.
    if (key && portal && isSessionToken(key)) {
      const s = portal.readSession(key);
      const keys = s?.role === 'tenant' && s.tenantId ? await keysOf(directory, s.tenantId, c) : [];
      if (!s?.tenantId || !keys.some((k) => k.keyId === s.keyId))
        return problem(c, 401, 'unauthorized', 'The portal session has ended', 'Sign in again.');
      c.set('tenantId', s.tenantId);
      return next();
    }
    const parsed = key ? parseApiKey(key) : undefined;
    const deny = () =>
      problem(c, 401, 'unauthorized', 'A valid API key is required', 'Send Authorization: Bearer <api key>.');
    if (!parsed) return deny();
    // Issue 13.6: an unknown tenant has no keys (and is remembered for a while).
    const keys = await keysOf(directory, parsed.tenantId, c);
    const hash = hashSecret(parsed.secret);
    if (!keys.some((k) => k.keyId === parsed.keyId && sameHash(k.hash, hash))) return deny();
    c.set('tenantId', parsed.tenantId);
    await next();
  };
}

/** Admin routes take the operator key from configuration; without one they are closed. */
export function operatorAuth(config: Config): MiddlewareHandler {
  return async (c, next) => {
    if (!config.HERALD_OPERATOR_KEY)
      return problem(
        c,
        403,
        'operator_key_not_configured',
        'Admin routes are disabled: set HERALD_OPERATOR_KEY',
      );
    const key = bearer(c.req.header('authorization'));
    if (!key || !sameSecret(key, config.HERALD_OPERATOR_KEY))
      return problem(c, 401, 'unauthorized', 'The operator key is required');
    await next();
  };
}

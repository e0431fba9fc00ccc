import type { MiddlewareHandler } from 'hono';
import type { Config } from '../config.js';
import type { Directory } from './directory.js';
import { hashSecret, parseApiKey, sameHash, sameSecret } from './keys.js';
import { problem } from './problem.js';

export type TenantEnv = { Variables: { tenantId: string } };

function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return m?.[1];
}

/** Tenants authenticate with `Authorization: Bearer <api key>`; only hashes are compared. */
export function tenantAuth(directory: Directory): MiddlewareHandler<TenantEnv> {
  return async (c, next) => {
    const key = bearer(c.req.header('authorization'));
    const parsed = key ? parseApiKey(key) : undefined;
    const deny = () =>
      problem(c, 401, 'unauthorized', 'A valid API key is required', 'Send Authorization: Bearer <api key>.');
    if (!parsed) return deny();
    // Issue 13.6: an unknown tenant has no keys (and is remembered for a while); a Temporal
    // that cannot answer rejects, and the app's error handler answers 503: the key may well
    // be valid, and a client told 401 would drop it.
    const keys = await directory.tenantKeys(parsed.tenantId);
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

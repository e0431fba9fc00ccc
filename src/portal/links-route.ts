import { createRoute, z } from '@hono/zod-openapi';
import type { Config } from '../config.js';
import type { TenantEnv } from '../api/auth.js';
import { parseApiKey } from '../api/keys.js';
import { problemResponse, router } from '../api/openapi.js';
import { fail } from '../api/problem.js';
import { ExpiringSet } from '../shared/expiring-set.js';
import type { PortalTokens } from './tokens.js';

export const LINK_MAX_MINUTES = 60;

const linkBody = z
  .strictObject({
    expiresInMinutes: z
      .number()
      .int()
      .min(1)
      .max(LINK_MAX_MINUTES)
      .default(15)
      .openapi({
        description: `How long the link may be opened, 1 to ${LINK_MAX_MINUTES} minutes (default 15)`,
      }),
  })
  .openapi('PortalLinkRequest');

/**
 * Nonces of links already opened, remembered as long as a link can live. One-time within an
 * API process: with several processes behind a balancer, a link opened on one could be opened
 * once more on another within its few minutes (README, "Embed the portal").
 */
export class UsedLinks {
  private readonly used = new ExpiringSet(LINK_MAX_MINUTES * 60_000, 100_000);
  /** True the first time a nonce is presented. */
  claim(nonce: string): boolean {
    if (this.used.has(nonce)) return false;
    this.used.add(nonce);
    return true;
  }
}

/** Issue 18: `POST /v1/portal-links`, how a SaaS's backend opens the portal for its customer. */
export function portalLinksRouter(deps: { config: Config; tokens?: PortalTokens }) {
  const app = router<TenantEnv>();
  app.openapi(
    createRoute({
      method: 'post',
      path: '/',
      summary: 'A one-time URL that signs its opener into the tenant portal (embed it in an iframe)',
      request: { body: { content: { 'application/json': { schema: linkBody } }, required: false } },
      responses: {
        201: {
          description: 'The link',
          content: {
            'application/json': { schema: z.object({ url: z.string(), expiresAt: z.string() }) },
          },
        },
        400: problemResponse('Invalid body'),
        403: problemResponse('portal_not_configured: HERALD_PORTAL_SECRET is not set'),
      },
    }),
    async (c) => {
      if (!deps.tokens)
        fail(403, 'portal_not_configured', 'The portal is disabled', 'Set HERALD_PORTAL_SECRET.');
      // The body is optional: without one, validation is skipped and the default applies.
      const minutes =
        (c.req.valid('json') as { expiresInMinutes?: number } | undefined)?.expiresInMinutes ?? 15;
      const tenantId = c.get('tenantId');
      const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
      const keyId = parseApiKey(bearer)?.keyId ?? deps.tokens.readSession(bearer)?.keyId;
      if (!keyId) fail(401, 'unauthorized', 'A valid API key is required');
      const exp = Date.now() + minutes * 60_000;
      const token = deps.tokens.issueLink(tenantId, keyId, exp);
      const origin = deps.config.HERALD_PUBLIC_URL?.replace(/\/+$/, '') ?? new URL(c.req.url).origin;
      return c.json(
        {
          url: `${origin}/portal/link?token=${encodeURIComponent(token)}`,
          expiresAt: new Date(exp).toISOString(),
        },
        201,
      );
    },
  );
  return app;
}

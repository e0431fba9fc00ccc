import type { RouteHandler } from '@hono/zod-openapi';
import type { Transformer } from '../../transform/send.js';
import type { TenantEnv } from '../auth.js';
import { router } from '../openapi.js';
import { MAX_EVENT_DEPTH, maxJsonDepth } from '../json-depth.js';
import { fail } from '../problem.js';
import { checkTransformation } from '../transformation-check.js';
import * as routes from './transformations.routes.js';

/** R-RH-TRANSFORM: the dry run, evaluated by the same sandbox (and limits) as a delivery. */
export function transformationsRouter(deps: { sandbox: Transformer }) {
  const app = router<TenantEnv>();
  // The sample event's payload sits one level deeper than a published event's.
  app.use('/dry-run', maxJsonDepth(MAX_EVENT_DEPTH + 1, 'A dry run'));

  const dryRun: RouteHandler<typeof routes.dryRun, TenantEnv> = async (c) => {
    const { transformation, event } = c.req.valid('json');
    checkTransformation(transformation);
    const occurredAt = event.occurredAt ?? new Date().toISOString();
    const out = await deps.sandbox.transform(transformation, {
      id: event.id ?? 'evt_dry_run',
      type: event.type,
      occurredAt,
      // The body a published event carries (R-SIGN), so the dry run reads what a delivery reads.
      body: JSON.stringify({ type: event.type, timestamp: occurredAt, data: event.payload }),
      headers:
        event.headers &&
        Object.fromEntries(Object.entries(event.headers).map(([k, v]) => [k.toLowerCase(), v])),
    });
    if (!out.ok) {
      if (out.busy) fail(503, 'transformation_busy', 'Every transformation evaluator is busy', out.reason);
      fail(422, 'transformation_failed', 'The transformation failed on this event', out.reason);
    }
    return c.json(out.request, 200);
  };

  app.openapi(routes.dryRun, dryRun);
  return app;
}

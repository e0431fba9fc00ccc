import { createRoute, z } from '@hono/zod-openapi';
import type { TenantEnv } from '../auth.js';
import { fail } from '../problem.js';
import { problemResponse, router } from '../openapi.js';
import { transformationSchema } from '../schemas.js';
import { validateTransformation } from '../../transform/expression.js';
import type { Transformer } from '../../transform/send.js';

/** R-RH-TRANSFORM: a transformation is checked when it is saved; a syntax error is a 400 naming it. */
export function checkTransformation(expression: string, path = 'transformation'): void {
  const v = validateTransformation(expression);
  if (!v.ok)
    fail(400, 'invalid_transformation', 'The transformation is not a valid JSONata expression', v.message, {
      path,
      ...(v.position !== undefined ? { position: v.position } : {}),
    });
}

const dryRunSchema = z
  .strictObject({
    transformation: transformationSchema,
    event: z.strictObject({
      type: z.string().min(1).max(128),
      id: z.string().min(1).max(128).optional(),
      occurredAt: z.string().optional(),
      payload: z
        .unknown()
        .refine((v) => v !== undefined, 'Required')
        .openapi({ description: 'Any JSON value, as it would be published' }),
      headers: z
        .record(z.string(), z.string())
        .optional()
        .openapi({ description: 'Headers the event arrived with (inbound sources)' }),
    }),
  })
  .openapi('TransformationDryRun');

const dryRunResultSchema = z
  .object({
    method: z.enum(['POST', 'PUT', 'PATCH']),
    headers: z.record(z.string(), z.string()),
    body: z.string().openapi({ description: 'The exact body that would be signed and sent' }),
  })
  .openapi('TransformationResult');

export function transformationsRouter(deps: { sandbox: Transformer }) {
  const app = router<TenantEnv>();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/dry-run',
      summary: 'Run a transformation against a sample event, under the same limits as a delivery',
      request: { body: { content: { 'application/json': { schema: dryRunSchema } }, required: true } },
      responses: {
        200: {
          description: 'The request Herald would send (before its own signature and delivery headers)',
          content: { 'application/json': { schema: dryRunResultSchema } },
        },
        400: problemResponse('invalid_transformation: the expression does not compile'),
        422: problemResponse(
          'transformation_failed: it compiles but fails on this event (the reason is the detail)',
        ),
        503: problemResponse('transformation_busy: every evaluator is busy; try again'),
      },
    }),
    async (c) => {
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
    },
  );

  return app;
}

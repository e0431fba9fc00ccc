import { createRoute, z } from '@hono/zod-openapi';
import type { TransformedRequest } from '../../transform/expression.js';
import { problemResponse } from '../openapi.js';
import { transformationSchema } from '../schemas.js';

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
  .openapi('TransformationResult') satisfies z.ZodType<TransformedRequest>;

export const dryRun = createRoute({
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
});

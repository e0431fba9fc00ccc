import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { validationProblem } from './problem.js';

/** Every router validates with zod and answers a failed validation as problem+json. */
export function router<E extends Env = Env>() {
  return new OpenAPIHono<E>({
    defaultHook: (result, c) => {
      if (!result.success) return validationProblem(c, result.error);
    },
  });
}

/**
 * RFC 9457 problem details as Herald sends them (problem.ts): `code` is the stable reason a
 * client switches on; a problem may add its own members (`errors`, `path`, `retryAfterSeconds`...).
 */
const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string().openapi({ description: "Herald's stable, machine-readable reason" }),
    detail: z.string().optional(),
  })
  .catchall(z.unknown())
  .openapi('Problem');

export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problemSchema } },
});

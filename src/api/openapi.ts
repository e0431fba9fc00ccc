import { OpenAPIHono } from '@hono/zod-openapi';
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

export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { type: 'object' as const } } },
});

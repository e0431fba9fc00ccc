import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { Refusal, type RefusalKind } from '../core/refusal.js';
import { ProblemError } from './problem.js';

const STATUS: Record<RefusalKind, ContentfulStatusCode> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_many: 429,
};

/** Presents a use case's refusal as problem+json (same code); anything else goes on as it is. */
export async function orProblem<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    if (err instanceof Refusal)
      throw new ProblemError(STATUS[err.kind], err.code, err.title, err.detail, err.extra);
    throw err;
  }
}

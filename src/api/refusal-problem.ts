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

const asProblem = (err: unknown) =>
  err instanceof Refusal
    ? new ProblemError(STATUS[err.kind], err.code, err.title, err.detail, err.extra)
    : err;

/** Presents a use case's refusal as problem+json (same code); anything else goes on as it is. */
export async function orProblem<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    throw asProblem(err);
  }
}

/** The same for a rule checked synchronously. */
export function orProblemNow<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw asProblem(err);
  }
}

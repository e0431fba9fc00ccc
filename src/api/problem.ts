import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';

/** RFC 9457 problem details; `code` is Herald's stable, machine-readable reason. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  [extra: string]: unknown;
}

export function problem(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  title: string,
  detail?: string,
  extra: Record<string, unknown> = {},
): Response {
  const body: Problem = {
    type: `https://herald.dev/problems/${code}`,
    title,
    status,
    code,
    detail,
    ...extra,
  };
  return c.body(JSON.stringify(body), status, { 'content-type': 'application/problem+json' });
}

export function validationProblem(c: Context, error: z.ZodError): Response {
  const errors = error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  const first = errors[0];
  // A refinement may name its own stable code (e.g. invalid_secret) in its issue's params;
  // it is the answer's code when it is the body's only kind of problem.
  const codes = new Set(error.issues.map((i) => (i.code === 'custom' ? i.params?.code : undefined)));
  const own = codes.size === 1 ? [...codes][0] : undefined;
  return problem(
    c,
    400,
    typeof own === 'string' ? own : 'validation_failed',
    'The request body is not valid',
    first ? `${first.path || '(body)'}: ${first.message}` : undefined,
    { errors },
  );
}

/** Thrown by route handlers; the app's error handler renders it as problem+json. */
export class ProblemError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(`${code}: ${title}`);
  }
}

export function fail(
  status: ContentfulStatusCode,
  code: string,
  title: string,
  detail?: string,
  extra?: Record<string, unknown>,
): never {
  throw new ProblemError(status, code, title, detail, extra);
}

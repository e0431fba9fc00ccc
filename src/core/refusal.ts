/**
 * A use case's "no": a rule of the product refused the request. The API turns it into
 * problem+json with the same stable `code`; any other error is Herald's or Temporal's.
 */
export type RefusalKind = 'invalid' | 'not_found' | 'conflict' | 'gone' | 'too_many';

export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(`${code}: ${title}`);
    this.name = 'Refusal';
  }
}

export function refuse(
  kind: RefusalKind,
  code: string,
  title: string,
  detail?: string,
  extra?: Record<string, unknown>,
): never {
  throw new Refusal(kind, code, title, detail, extra);
}

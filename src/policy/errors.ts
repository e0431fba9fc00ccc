/**
 * One error type for every policy failure, so the API can map `code` straight
 * into a problem+json body and the worker can print a precise start-up refusal.
 * `code` is a stable machine string; `message` is for humans.
 */
export class PolicyError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'PolicyError';
    this.code = code;
  }
}

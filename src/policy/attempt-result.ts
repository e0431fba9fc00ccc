import type { AttemptRecord, SendResult, SentRequest } from '../shared/delivery-types.js';

/** What every kind of result may carry: the endpoint's health as the attempt saw it. */
interface Seen {
  latencyMs: number;
  health?: SendResult['health'];
  /** A kept outcome (SendResult.kept): when that send went out and ended, not this one. */
  sentEarlier?: { startedAt: number; finishedAt: number };
}

/** The parts of the receiver's answer the attempt log keeps (R-RESP, issues 14.12, 14.16). */
interface Answer {
  responseBody?: string;
  responseBodyEncoding?: 'base64';
  sent?: SentRequest;
}

/**
 * One Herald attempt as the delivery round (next-step.ts) reads it: exactly one of these,
 * so each rule branches on `kind`, not on which optional fields happen to be set.
 */
export type AttemptResult =
  /** Sent, and the receiver answered 2xx. */
  | ({ kind: 'delivered'; httpStatus?: number } & Seen & Answer)
  /** Sent, and the receiver answered something else; the policy classifies the status. */
  | ({ kind: 'rejected'; httpStatus: number; code: string; retryAfter?: string; detail?: string } & Seen & Answer)
  /** Sent (or tried to), and no answer came: `timeout`, `network_*`. */
  | ({ kind: 'transport_error'; code: string; detail?: string } & Seen & Answer)
  /** Refused before anything left this machine: URL shape, `private_address`, `dns_failed`, a failed transformation. */
  | ({ kind: 'not_sent'; code: string; detail?: string } & Seen)
  /** Not an attempt: held back (paused, breaker open, subscription inactive), to be asked again. */
  | ({ kind: 'deferred'; code: string; retryInMs: number } & Seen)
  /** Not an attempt: the endpoint cannot take this delivery any more; it ends as told. */
  | ({ kind: 'dropped'; code: string; endAs: 'dead' | 'exhausted' | 'failed' } & Seen)
  /**
   * The send threw inside Herald: the worker died (`lease`: its lease ran out) or the activity
   * failed. `startedAt`: when the lost attempt went out, if not when this send was asked for
   * (an inline first attempt lost with its workflow task went out with the run).
   */
  | { kind: 'worker_error'; lease: boolean; startedAt?: number };

/**
 * The send activity's result (SendResult, the shape recorded in every history, so it stays
 * as it is for running deliveries and for workers of either version during a deploy) read
 * as one AttemptResult. The order of the checks is the order the workflow always used.
 */
export function readSendResult(r: SendResult): AttemptResult {
  const seen: Seen = {
    latencyMs: r.latencyMs,
    ...(r.health ? { health: r.health } : {}),
    ...(r.kept ? { sentEarlier: { startedAt: Date.parse(r.startedAt), finishedAt: Date.parse(r.finishedAt) } } : {}),
  };
  if (r.drop) return { kind: 'dropped', code: r.drop.code, endAs: r.drop.endAs, ...seen };
  if (r.deferral) return { kind: 'deferred', code: r.deferral.code, retryInMs: r.deferral.retryInMs, ...seen };
  const answer: Answer = { responseBody: r.responseBody, responseBodyEncoding: r.responseBodyEncoding, sent: r.sent };
  if (r.code === undefined) return { kind: 'delivered', httpStatus: r.httpStatus, ...seen, ...answer };
  const detail = r.detail ? { detail: r.detail } : {};
  if (r.httpStatus !== undefined)
    return { kind: 'rejected', httpStatus: r.httpStatus, code: r.code, retryAfter: r.retryAfter, ...detail, ...seen, ...answer };
  if (r.notSent) return { kind: 'not_sent', code: r.code, ...detail, ...seen };
  return { kind: 'transport_error', code: r.code, ...detail, ...seen, ...answer };
}

/** The attempt-log fields of a sent (or tried) attempt, as the log has always kept them. */
export function attemptRowFields(
  r: Extract<AttemptResult, { kind: 'delivered' | 'rejected' | 'transport_error' | 'not_sent' }>,
): Pick<AttemptRecord, 'httpStatus' | 'code' | 'responseBody' | 'responseBodyEncoding' | 'sent' | 'detail'> {
  const answer: Answer = r.kind === 'not_sent' ? {} : r;
  return {
    httpStatus: r.kind === 'delivered' || r.kind === 'rejected' ? r.httpStatus : undefined,
    code: r.kind === 'delivered' ? undefined : r.code,
    responseBody: answer.responseBody,
    responseBodyEncoding: answer.responseBodyEncoding,
    sent: answer.sent,
    ...(r.kind !== 'delivered' && r.detail ? { detail: r.detail } : {}),
  };
}

import { PolicyError } from './errors.js';
import { statusMatcherFor } from './status-grammar.js';
import type { DeliveryPolicy } from './types.js';
import type { UrlErrorCode } from './url-check.js';

export type AttemptOutcome =
  | { kind: 'success' }
  /** Failed attempt; the schedule continues (if attempts and lifetime remain). */
  | { kind: 'retry'; code: string }
  /** No retry can change this response: exhausted now (R-STATUS). */
  | { kind: 'dead_letter'; code: string }
  /** 410 under a preset that treats it specially (see GoneAction). */
  | { kind: 'gone'; code: 'gone'; disableEndpoint: boolean; status: 'dead' | 'exhausted' }
  /** Never attempted: the endpoint cannot accept it (R-STATUS `failed`). */
  | { kind: 'failed'; code: string };

/** R-URL codes, as produced by checkEndpointUrl: a code added there must be listed here. */
const URL_ERROR_CODES: ReadonlySet<string> = new Set(
  Object.keys({
    not_https: true,
    port_not_allowed: true,
    userinfo_not_allowed: true,
    fragment_not_allowed: true,
    invalid_url: true,
    url_too_long: true,
    url_too_short: true,
  } satisfies Record<UrlErrorCode, true>),
);

/** Deferrals and terminal marks: they describe no attempt, so classifying one is a caller bug. */
const NON_ATTEMPT_CODES: readonly string[] = Object.freeze([
  'subscription_inactive',
  'endpoint_disabled',
  'endpoint_paused',
  'lease_expired',
  'lifetime_exceeded',
]);

/** R-ERRCODES code for a non-2xx response. */
export function responseErrorCode(status: number): string {
  if (status === 410) return 'gone';
  if (status >= 300 && status < 400) return 'redirect_not_allowed';
  return `http_${status}`;
}

/**
 * SPEC §3 "retried responses" / "non-retried response" for one HTTP response.
 * The body is never looked at (R-HDR). 3xx is never followed (R-NOREDIR) and
 * is classified like any other failure, under its own code.
 *
 * A status outside 100-599 is not HTTP; it is treated as the server fault it
 * is, i.e. like a 500, but keeps its real number in the code.
 */
export function classifyResponse(p: DeliveryPolicy, status: number): AttemptOutcome {
  if (!Number.isInteger(status) || status < 0) throw new RangeError(`not an HTTP status: ${status}`);
  if (status >= 200 && status < 300) return { kind: 'success' };
  const code = responseErrorCode(status);

  if (status === 410) {
    if (p.goneAction === 'dead_and_disable')
      return { kind: 'gone', code: 'gone', disableEndpoint: true, status: 'dead' };
    if (p.goneAction === 'exhaust_and_disable') {
      return { kind: 'gone', code: 'gone', disableEndpoint: true, status: 'exhausted' };
    }
  }

  const asStatus = status >= 100 && status <= 599 ? status : 500;
  // R-RH-GRAMMAR: a non-2xx outside the list is treated like a non-retryable 4xx.
  return statusMatcherFor(p.retryableStatuses)(asStatus)
    ? { kind: 'retry', code }
    : { kind: 'dead_letter', code };
}

/**
 * Outcome of an attempt that produced no HTTP response. Transport failures
 * (`timeout`, `dns_failed`, `network_*`, TLS included) and
 * `transformation_failed` are retried under every preset. An unsendable
 * endpoint (`private_address`, URL-shape codes) is retried or `failed` per
 * policy. Unknown codes are retried: a failure we cannot name must never drop
 * a delivery (R-CRASH). `http_<status>` and `gone` are accepted for
 * convenience and go through classifyResponse.
 */
export function classifyError(p: DeliveryPolicy, code: string): AttemptOutcome {
  if (typeof code !== 'string' || code === '')
    throw new PolicyError('invalid_error_code', 'error code must be a non-empty string');
  if (code === 'gone') return classifyResponse(p, 410);
  const http = /^http_(\d{3})$/.exec(code);
  if (http) return classifyResponse(p, Number(http[1]));
  if (code === 'redirect_not_allowed') {
    throw new PolicyError(
      'status_required',
      'redirect_not_allowed depends on the status; use classifyResponse',
    );
  }
  if (NON_ATTEMPT_CODES.includes(code)) {
    throw new PolicyError(
      'not_an_attempt_outcome',
      `${code} is a deferral or terminal mark, not an attempt outcome`,
    );
  }
  if (code === 'private_address') {
    return p.privateAddress === 'fail' ? { kind: 'failed', code } : { kind: 'retry', code };
  }
  if (URL_ERROR_CODES.has(code)) {
    return p.invalidUrl === 'fail' ? { kind: 'failed', code } : { kind: 'retry', code };
  }
  return { kind: 'retry', code };
}

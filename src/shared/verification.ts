// Issue 14.15: endpoint verification by challenge (R-STATUS "failed: endpoint unverified";
// Railhook's FAILED "the endpoint cannot accept the delivery, for example it is not
// verified"). Pure and free of Node built-ins: the endpoint workflow imports it.

/** `none`: deliveries go out as before. `challenge`: only once the receiver echoed a challenge. */
export const VERIFICATION_MODES = ['none', 'challenge'] as const;
export type VerificationMode = (typeof VERIFICATION_MODES)[number];

/**
 * `not_required`: mode `none`. `pending`: the first challenge for the current URL is in
 * flight (deliveries wait). `verified`: the receiver echoed it. `unverified`: it did not
 * (deliveries end `failed`, `endpoint_unverified`, nothing sent).
 */
export type VerificationStatus = 'not_required' | 'pending' | 'verified' | 'unverified';

/** The `type` of a challenge request's body. */
export const VERIFICATION_EVENT_TYPE = 'webhook.verification';
/** A 2xx whose body is not `{"challenge": "<the value sent>"}`. */
export const CHALLENGE_MISMATCH = 'challenge_mismatch';
/** The challenge activity failed for good (a worker lost twice): not the receiver's doing. */
export const VERIFICATION_ERROR = 'verification_error';
export const ENDPOINT_UNVERIFIED = 'endpoint_unverified';
export const ENDPOINT_VERIFYING = 'endpoint_verifying';
/**
 * How often a delivery published while the first challenge is in flight looks again. The
 * endpoint wakes its deliveries when the challenge is answered, so this is only a backstop;
 * the wait itself is bounded by the challenge's own timeout (at most 60 s, twice).
 */
export const VERIFYING_RECHECK_MS = 5_000;

/** One challenge request and what came of it (no challenge value: it never leaves the activity). */
export interface ChallengeResult {
  ok: boolean;
  at: number;
  /** The URL challenged: a result for a URL changed since is ignored. */
  url: string;
  httpStatus?: number;
  /** Why not: the send's code (`http_503`, `network_ECONNREFUSED`, `private_address`...) or challenge_mismatch. */
  code?: string;
  detail?: string;
  latencyMs: number;
}

export interface VerificationError {
  at: number;
  code: string;
  httpStatus?: number;
  detail?: string;
}

/** Kept in the endpoint workflow and carried across continue-as-new. */
export interface VerificationState {
  mode: VerificationMode;
  status: VerificationStatus;
  verifiedAt?: number;
  lastError?: VerificationError;
}

/** What the endpoint view shows (`verification: { mode, status, verifiedAt?, lastError? }`). */
export type VerificationView = VerificationState;

export function initialVerification(mode: VerificationMode | undefined): VerificationState {
  return mode === 'challenge' ? { mode, status: 'pending' } : { mode: 'none', status: 'not_required' };
}

/** The state after a challenge's result for the endpoint's current URL. */
export function afterChallenge(state: VerificationState, r: ChallengeResult): VerificationState {
  if (state.mode !== 'challenge') return state;
  if (r.ok) return { mode: 'challenge', status: 'verified', verifiedAt: r.at };
  return {
    mode: 'challenge',
    status: 'unverified',
    lastError: {
      at: r.at,
      code: r.code ?? CHALLENGE_MISMATCH,
      ...(r.httpStatus !== undefined ? { httpStatus: r.httpStatus } : {}),
      ...(r.detail !== undefined ? { detail: r.detail } : {}),
    },
  };
}

export type VerificationGate =
  | { kind: 'send' }
  | { kind: 'defer'; code: typeof ENDPOINT_VERIFYING; retryInMs: number }
  | { kind: 'drop'; code: typeof ENDPOINT_UNVERIFIED; endAs: 'failed' };

/**
 * The send path's verdict for a delivery (a manual test is not a delivery and never asks).
 * Pending waits rather than fails: a receiver that is merely slow to answer its first
 * challenge must not lose the events published right after the endpoint was created.
 */
export function verificationGate(status: VerificationStatus | undefined): VerificationGate {
  if (status === 'pending')
    return { kind: 'defer', code: ENDPOINT_VERIFYING, retryInMs: VERIFYING_RECHECK_MS };
  if (status === 'unverified') return { kind: 'drop', code: ENDPOINT_UNVERIFIED, endAs: 'failed' };
  return { kind: 'send' };
}

import { randomBytes } from 'node:crypto';
import type { SendResult } from '../shared/delivery-types.js';
import { CHALLENGE_MISMATCH, VERIFICATION_EVENT_TYPE, type ChallengeResult } from '../shared/verification.js';
import type { createHttpSender } from './http-sender.js';

export interface VerificationActivityDeps {
  send: ReturnType<typeof createHttpSender>;
  now: () => Date;
}

/**
 * Issue 14.15: the receiver proves it controls the URL by answering a 2xx whose body is the
 * JSON object `{"challenge": "<the value sent>"}` (other members are ignored), as Slack's
 * `url_verification` accepts. A bare echo is not accepted: one documented answer, and a
 * catch-all receiver answering `ok` or echoing the request body never passes by accident.
 */
export function challengeAnswered(
  res: Pick<SendResult, 'responseBody' | 'responseBodyEncoding'>,
  challenge: string,
): boolean {
  if (res.responseBody === undefined || res.responseBodyEncoding !== undefined) return false;
  try {
    const body: unknown = JSON.parse(res.responseBody);
    if (typeof body !== 'object' || body === null) return false;
    const answer = body as { challenge?: unknown; type?: unknown };
    // The request itself carries the challenge at the top level: sent back, it is an echo.
    return answer.challenge === challenge && answer.type !== VERIFICATION_EVENT_TYPE;
  } catch {
    return false;
  }
}

export function createVerificationActivities(deps: VerificationActivityDeps) {
  return {
    /**
     * One signed challenge request through the delivery sender: the same URL rules, SSRF
     * checks, pinned address and Standard Webhooks signature (every live secret) as a
     * delivery. The challenge value stays in this activity: neither history nor logs see it.
     */
    async sendVerificationChallenge(args: {
      endpointId: string;
      url: string;
      secrets: string[];
      timeoutSeconds: number;
      deliveryIdHeader: string;
    }): Promise<ChallengeResult> {
      const at = deps.now();
      const challenge = randomBytes(24).toString('base64url');
      const id = `msg_verify_${args.endpointId}_${at.getTime()}`;
      const body = JSON.stringify({
        type: VERIFICATION_EVENT_TYPE,
        timestamp: at.toISOString(),
        challenge,
        data: { endpointId: args.endpointId },
      });
      const r = await deps.send({
        deliveryId: `verify_${args.endpointId}_${at.getTime()}`,
        attempt: 1,
        event: { id, type: VERIFICATION_EVENT_TYPE, occurredAt: at.toISOString(), body },
        target: { url: args.url, secrets: args.secrets },
        timeoutSeconds: args.timeoutSeconds,
        deliveryIdHeader: args.deliveryIdHeader,
      });
      const base = { at: at.getTime(), url: args.url, latencyMs: r.latencyMs, httpStatus: r.httpStatus };
      if (r.code !== undefined)
        return { ...base, ok: false, code: r.code, ...(r.detail ? { detail: r.detail } : {}) };
      if (challengeAnswered(r, challenge)) return { ...base, ok: true };
      return {
        ...base,
        ok: false,
        code: CHALLENGE_MISMATCH,
        detail: 'the 2xx response body was not {"challenge": "<the challenge sent>"}',
      };
    },
  };
}

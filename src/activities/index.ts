import type { SendRequest, SendResult } from '../shared/delivery-types.js';
import { createHttpSender, type HttpSenderDeps } from './http-sender.js';

/**
 * Decides, before anything is sent, whether this attempt must wait instead (endpoint
 * paused, subscription inactive, circuit open): a deferral spends no attempt.
 */
export type SendGate = (req: SendRequest) => Promise<{ code: string; retryInMs: number } | undefined>;

export interface ActivityDeps extends HttpSenderDeps {
  gate?: SendGate;
}

/** Activities are built from their dependencies so tests can hand in a clock, resolver or gate. */
export function createActivities(deps: ActivityDeps) {
  const send = createHttpSender(deps);
  const now = deps.now;
  return {
    async sendAttempt(req: SendRequest): Promise<SendResult> {
      const deferral = await deps.gate?.(req);
      if (deferral) {
        const at = now().toISOString();
        return { startedAt: at, finishedAt: at, latencyMs: 0, deferral, notSent: true };
      }
      return send(req);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

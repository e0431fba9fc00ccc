import type { SendRequest, SendResult } from '../shared/delivery-types.js';
import { createHttpSender, type HttpSenderDeps } from './http-sender.js';

export type ActivityDeps = HttpSenderDeps;

/** Activities are built from their dependencies so tests can hand in a clock or resolver. */
export function createActivities(deps: ActivityDeps) {
  const send = createHttpSender(deps);
  return {
    async sendAttempt(req: SendRequest): Promise<SendResult> {
      return send(req);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

import type { HealthState } from '../health/types.js';
import type { Reopen } from '../policy/next-step.js';
import type { DeliveryPolicy } from '../policy/policy.js';
import type { ForwardRequest } from './source-types.js';

/** R-STATUS. */
export type DeliveryStatus = 'pending' | 'processing' | 'succeeded' | 'failed' | 'exhausted' | 'dead';

export const TERMINAL_STATUSES: readonly DeliveryStatus[] = ['succeeded', 'failed', 'exhausted', 'dead'];

/** The event as the receiver sees it. `body` is the exact JSON text sent on every attempt (R-SIGN). */
export interface EventEnvelope {
  id: string;
  type: string;
  occurredAt: string;
  body: string;
}

/** Where to send, when the delivery is not bound to an endpoint workflow. */
export interface DeliveryTarget {
  url: string;
  secrets: string[];
  /** R-RH-TRANSFORM: a JSONata expression the send applies before signing. */
  transformation?: string;
  /**
   * R-RH-INBOUND: a forward of a received request. The body goes out byte-for-byte with
   * the original headers (hop-by-hop ones dropped) and no Herald signature.
   */
  forward?: ForwardRequest;
}

export interface DeliveryInput {
  deliveryId: string;
  tenantId: string;
  endpointId: string;
  event: EventEnvelope;
  /**
   * Where to send when the delivery is not bound to an endpoint workflow. Endpoint-bound
   * deliveries leave it out and read URL and secrets from the endpoint at send time, so
   * a URL change or a secret rotation reaches deliveries already waiting.
   */
  target?: DeliveryTarget;
  policy: DeliveryPolicy;
  /** ISO time the delivery was created; the lifetime clock (R-RH-LIFETIME) runs from here. */
  createdAt: string;
  /**
   * Created straight into the dead letters, never sent: Dong Tien's hold was full
   * (`hold_overflow`, R-DT-HEALTH). It can still be replayed after re-enable.
   */
  deadLetterOnArrival?: string;
  /**
   * Issue 17: the endpoint had `ordering: 'fifo'` when the event was accepted. The delivery
   * asks the endpoint for its turn before each send and tells it when its round ends. Absent
   * for every other delivery, which costs exactly what it did before (no round trip, no event).
   */
  ordered?: true;
  /**
   * Issue 17: the endpoint had a rate limit when the event was accepted, and took new events
   * at once (`queue`): the publish reserves the delivery's turn before it starts it.
   */
  paced?: true;
  /**
   * Issue 17: the turn the publish reserved (`sendAt`, workflow clock ms) when it asked
   * (`reservedAt`); the delivery was started to run just before it. Its first send waits for
   * that time and goes, without asking the endpoint again, when the endpoint has no other
   * flow option; the wait is the log's first row (a `rate_limited` deferral).
   */
  pacedTurn?: { reservedAt: number; sendAt: number };
  /**
   * Set only by the delivery workflow itself when it continues as new (issue 14.1): the
   * run before this one handed over everything a reader or the next attempt needs, so the
   * chain of runs reads as one delivery (same id, same attempt log).
   */
  carried?: DeliveryCarried;
  /**
   * Issue 16: this run completes when its round ends. Absent on runs started before issue 16,
   * which keep holding open for their recovery window exactly as before (their histories must
   * still replay: test/workflows/delivery-replay.test.ts).
   */
  closesAtRoundEnd?: true;
  /**
   * Issue 16 (4): this delivery is its event's record (the event has no `eventWorkflow`): the
   * events list finds the event by it. Set on one delivery of such an event.
   */
  eventRecord?: true;
  /**
   * Issue 16 (4): set on the delivery that holds its event's id for the publisher (its
   * workflow id is `eventWorkflowId`, started once): the event's other deliveries, as
   * started, so a repeated publish answers the first and finishes a fan-out the first request
   * left half done, as the record workflow's input did. Absent when there are none.
   */
  siblings?: Array<Omit<DeliveryInput, 'event'>>;
  /**
   * Issue 16: a dead-letter retry or replay of a closed delivery: a new run of the same
   * workflow id, seeded with the previous run's final state (its workflow result).
   */
  reopened?: { previous: DeliveryState; command: Reopen };
}

/** What one run of a delivery hands to the next when its history grows long (continueAsNew). */
export interface DeliveryCarried {
  state: DeliveryState;
  lifetimeStart: number;
  scheduleBase: number;
  singleReplay: boolean;
  /** The status last written to the search attribute. */
  indexed: DeliveryStatus;
  ending?: { status: 'dead' | 'exhausted' | 'failed'; code: string };
  wake: boolean;
  drainTurn: boolean;
  freshRead: boolean;
  lastHealth?: HealthState;
  /** Sends in a row that threw inside Herald (worker_error, lease loss): bounded (issue 13.5). */
  workerErrors: number;
  /** The deferral streak under way: its code, how many in a row, since when (issue 14.2). */
  deferStreak?: DeferStreak;
}

export interface DeferStreak {
  code: string;
  count: number;
  /** Workflow time of the first deferral since the last attempt: the deferral limit runs from here. */
  since: number;
}

/** One row of the attempt log (R-RESP). Deferrals and lease losses are rows too, but not attempts. */
export interface AttemptRecord {
  /**
   * `attempt` spends an attempt; `refused` is a send that policy ends without one
   * (Railhook's private address: `failed`); `deferral` and `lease_expired` spend nothing.
   */
  kind: 'attempt' | 'refused' | 'deferral' | 'lease_expired';
  /** Attempt number within its round, 1-based; for non-attempt rows, the attempt it preceded. */
  attempt: number;
  round: number;
  startedAt: string;
  finishedAt: string;
  latencyMs: number;
  httpStatus?: number;
  /** `http_<status>`, `timeout`, `network_ECONNREFUSED`, ... ; absent on success. */
  code?: string;
  /**
   * First 512 bytes of the response body (R-RESP): text, cut before a character the limit
   * would split; base64 when the bytes are not UTF-8 (then `responseBodyEncoding` says so).
   */
  responseBody?: string;
  /** Issue 14.12: `base64` when `responseBody` holds the bytes as base64; absent for text. */
  responseBodyEncoding?: 'base64';
  /**
   * Issue 14.16 (R-SMENGO-LOG): what this attempt sent, when it was not the event body as
   * stored (a transformation ran). Absent for a plain delivery, so its history does not grow.
   */
  sent?: SentRequest;
  /** Why, when nothing was sent: a failed transformation's error (R-RH-TRANSFORM). */
  detail?: string;
  /** A single-attempt replay (R-BIRD-REPLAY): its outcome never touches endpoint health. */
  replay?: boolean;
  /**
   * A deferral row that stands for this many identical deferrals in a row, from its
   * `startedAt` to its `finishedAt` (a long pause would otherwise add a row a minute).
   */
  repeats?: number;
}

/**
 * A delivery as its query (`deliveryStateQuery`) answers and as the delivery workflow
 * returns it when it closes: status, attempt log, next attempt (policy/next-step.ts keeps it
 * as `RoundState.delivery`).
 */
export interface DeliveryState {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  status: DeliveryStatus;
  round: number;
  attemptsInRound: number;
  /** Attempts this round may use: the policy's, plus 3 per dead-letter retry (R-RH-DLQ). */
  attemptBudget: number;
  attempts: AttemptRecord[];
  nextAttemptAt?: string;
  lastCode?: string;
}

/**
 * What the send activity (`sendAttempt`) reports; it never throws for an HTTP outcome, only
 * for a crash. This is the shape recorded in every delivery's history, so it stays as it is
 * for running deliveries and for workers of both versions during a deploy; the workflow
 * reads it as one discriminated AttemptResult (policy/attempt-result.ts `readSendResult`):
 * `drop` -> dropped, `deferral` -> deferred, no `code` -> delivered (2xx), `httpStatus` ->
 * rejected, `notSent` -> not_sent, otherwise transport_error.
 */
export interface SendResult {
  startedAt: string;
  finishedAt: string;
  latencyMs: number;
  httpStatus?: number;
  /** Set for every non-2xx outcome and every refusal to send. */
  code?: string;
  /** True when nothing left this machine (URL rejected, private address, transformation failed). */
  notSent?: boolean;
  /** Why, when the code alone does not say (a failed transformation's error). */
  detail?: string;
  /** Not an attempt: the send was held back (endpoint paused, subscription inactive, ...). */
  deferral?: { code: string; retryInMs: number };
  /** Not an attempt: the endpoint cannot take this delivery any more; it ends as told. */
  drop?: { code: string; endAs: 'dead' | 'exhausted' | 'failed' };
  /** The endpoint's health as this attempt saw it, so the workflow reports only changes. */
  health?: HealthState;
  retryAfter?: string;
  responseBody?: string;
  /** Issue 14.12: `base64` when the response was not UTF-8 (see AttemptRecord). */
  responseBodyEncoding?: 'base64';
  /** Issue 14.16: the body as sent, when a transformation changed it (see AttemptRecord). */
  sent?: SentRequest;
  /**
   * Issue 16: an inline first attempt this worker had no inline slot for (policy/flow-share.ts
   * InlineSlots): nothing was done, not an attempt; the workflow sends it as the activity.
   */
  inlineDeclined?: true;
  /**
   * Issue 16 (R-CRASH): the inline first attempt of a first workflow task that is a repeat
   * (`AttemptRequest.firstTaskRepeated`): nothing was sent; the attempt of the task before
   * it may have been, so the workflow logs a lost lease and repeats it as the activity.
   */
  inlineLost?: true;
  /**
   * Issue 16 (R-CRASH): nothing was sent now; this is the outcome of the inline send this
   * attempt repeats, kept by the worker that sent it after the worker's cache dropped the
   * run it was sent for (activities/dropped-inline-sends.ts). `startedAt` and `finishedAt`
   * are that send's.
   */
  kept?: true;
}

/**
 * Issue 14.16: the request an attempt sent, when it differs from the stored event. Headers
 * are left out on purpose: they carry the signature and whatever credentials a
 * transformation adds for the receiver, and the log must never hold a secret.
 */
export interface SentRequest {
  /** The body as sent (UTF-8 text), its first `SENT_BODY_LOG_BYTES` bytes when longer. */
  body: string;
  /** The whole body's length in bytes, as the receiver got it. */
  bytes: number;
  /** Present when `body` is only the start of what was sent. */
  truncated?: true;
  /** Present when the transformation chose a method other than POST. */
  method?: string;
}

/** What the send activity gets for one Herald attempt. */
export interface AttemptRequest {
  deliveryId: string;
  tenantId: string;
  endpointId: string;
  attempt: number;
  event: EventEnvelope;
  target?: DeliveryTarget;
  createdAt: string;
  timeoutSeconds: number;
  deliveryIdHeader: string;
  preset: DeliveryPolicy['preset'];
  /** Dong Tien drain: the endpoint released this held delivery; its turn to send. */
  drainTurn?: boolean;
  /** Read the endpoint fresh, not from the cache: it was just changed (resume, drain). */
  freshRead?: boolean;
  /**
   * Workflow time when the attempt was scheduled. Health timers (breaker open-until, the
   * 14-day hold) are workflow times, so decisions use the later of this and the wall clock.
   */
  scheduledAt: number;
  /** Issue 16: the first attempt, run inside the first workflow task (a local activity). */
  inline?: true;
  /** Issue 17: an ordered delivery (DeliveryInput.ordered): it sends only as the head of the queue. */
  ordered?: true;
  /** Issue 17: the turn reserved at publish (DeliveryInput.pacedTurn), on the run's first send only. */
  turnAt?: number;
  /**
   * Issue 16: this first workflow task is a repeat (the one before it timed out or failed).
   * The local activity is still scheduled, so the task's commands are the same whatever the
   * workflow reads on a replay; it sends nothing and answers `inlineLost`.
   */
  firstTaskRepeated?: true;
}

/** One HTTP request, once Herald knows where to send and with which secrets. */
export interface SendRequest {
  deliveryId: string;
  attempt: number;
  event: EventEnvelope;
  target: DeliveryTarget;
  timeoutSeconds: number;
  deliveryIdHeader: string;
}

export type PresetName = 'standard' | 'smengo' | 'railhook' | 'bird' | 'dongtien';

export type Direction = 'outbound' | 'inbound';

/**
 * What a 410 Gone does (SPEC §3 "non-retried response"):
 * - `dead_and_disable`: the delivery ends `dead` with code `gone` and the
 *   endpoint is disabled at once (smengo).
 * - `exhaust_and_disable`: the endpoint is disabled at once and the delivery
 *   ends `exhausted` (dead letter), so nothing is dropped and it can be
 *   recovered after re-enabling (dongtien; standard, whose health is "as smengo").
 * - `follow_list`: 410 is an ordinary status and `retryableStatuses` decides
 *   (railhook: dead-lettered by default; bird: retried, every non-2xx is).
 */
export type GoneAction = 'dead_and_disable' | 'exhaust_and_disable' | 'follow_list';

/**
 * What happens when the endpoint cannot be sent to at all: `fail` ends the
 * delivery `failed` without spending an attempt (railhook); `retry` spends the
 * attempt, sends nothing and keeps the schedule (SPEC §5, DNS or config may change).
 */
export type UnsendableAction = 'retry' | 'fail';

export interface JitterRange {
  /** Smallest factor a delay is multiplied by. */
  min: number;
  /** Largest factor (exclusive: random01 is in [0,1)). */
  max: number;
  /**
   * The first attempt whose preceding wait is jittered. Attempt 1 is always
   * sent at once, so 2 means "every wait" (dongtien's "from attempt 2": its
   * seed numbers attempts 1 = immediate, 2 = after 5 s). 3 would leave the wait
   * before attempt 2 exact.
   */
  fromAttempt: number;
}

export interface RetryAfterRule {
  /** Statuses on which the header is honoured, in the R-RH-GRAMMAR grammar. */
  statuses: string;
  /** `max`: max(jittered schedule, header); `replace`: the header replaces the schedule. */
  rule: 'max' | 'replace';
  /** Upper bound applied to the header only, never to the schedule's own steps. */
  capSeconds: number;
  /** Lower bound applied to the header only (dongtien: 1 s, so `0` is no hot loop). */
  minSeconds: number;
  /** Railhook's `WEBHOOK_RETRY_AFTER_MAX_SECONDS=0`: the header is not read at all. */
  ignore: boolean;
}

export interface DeliveryPolicy {
  preset: PresetName;
  direction: Direction;
  /** First attempt plus retries. */
  maxAttempts: number;
  /** Delay after attempt 1, 2, ...; when there are more attempts than delays the last repeats. */
  retryDelaysSeconds: number[];
  jitter: JitterRange;
  timeoutSeconds: number;
  /** R-RH-GRAMMAR list of non-2xx statuses that are retried; the others dead-letter. */
  retryableStatuses: string;
  retryAfter: RetryAfterRule;
  /** Bird: after a 429 or a timeout the next wait is at least this long; 0 elsewhere. */
  minDelayAfter429OrTimeoutSeconds: number;
  /** From creation (or manual retry); null = no cap. */
  lifetimeSeconds: number | null;
  /** Carries `<deliveryId>:<attempt>` (R-HDR). */
  deliveryIdHeader: string;
  /** Resolved address refused by R-SSRF. */
  privateAddress: UnsendableAction;
  /** URL fails R-URL at send time. */
  invalidUrl: UnsendableAction;
  goneAction: GoneAction;
  /** R-CRASH: how long an in-flight attempt may go silent before another worker repeats it. */
  leaseSeconds: number;
}

/**
 * What replaying one named delivery does (and bulk "replay failures", which replays many
 * named ones): `round` opens a new round of the policy's attempts (R-DT-REPLAY), `single`
 * sends one attempt (the shape of Bird's resend), `none` is refused.
 */
export type DeliveryReplay = 'round' | 'single' | 'none';

/**
 * The manual recovery a preset offers (SPEC §3 "manual recovery"). It is preset data, not a
 * per-delivery rule: the API reads it to decide which routes answer, so no route checks a
 * preset's name. Kept apart from `DeliveryPolicy`, which travels in every delivery's
 * workflow input and is validated by a strict schema: the offer is the API's, not the
 * workflow's, and changing it must not touch running histories.
 */
export interface RecoveryOffer {
  /** GET /v1/dead-letters shows this preset's exhausted deliveries (Bird: no separate list). */
  deadLetterList: boolean;
  /** R-RH-DLQ: a dead letter goes back to `pending` with 3 more attempts. */
  deadLetterRetry: boolean;
  /** R-BIRD-REPLAY: POST /v1/replay/window resends an endpoint's failures, one attempt each. */
  windowReplay: boolean;
  /** POST /v1/replay/deliveries/{id} and POST /v1/replay/failures. */
  deliveryReplay: DeliveryReplay;
  /**
   * How long a finished delivery stays open for the recovery above (SPEC §3 "log / body
   * retention"); 0 closes it at once.
   */
  openSeconds: number;
  /**
   * Where `openSeconds` counts from: `round_end`, the end of the delivery's latest round
   * (Bird's attempts live 3 days); `created`, the event's creation (Dong Tien keeps bodies
   * 90 days from the event, so a replay cannot push its window further).
   */
  openFrom: 'round_end' | 'created';
}

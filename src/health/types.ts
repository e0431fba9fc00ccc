import type { PresetName } from '../policy/types.js';

export type { PresetName } from '../policy/types.js';

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** The attempt code of a 410 (R-ERRCODES); a failed attempt carrying it counts as `gone`. */
export const GONE_CODE = 'gone';

export type HealthStatus = 'active' | 'degraded' | 'paused' | 'suspended' | 'disabled';

export type HealthNotice = 'disabled' | 'degraded' | 'suspended' | 'recovered' | 'paused';

/**
 * Railhook's breaker (R-RH-DEFER). Closed while `openUntil` is absent; open until
 * `openUntil`; from then on half-open until a result arrives. The phase is derived
 * from the clock instead of stored, so no timer input is needed to leave `open`.
 */
export interface CircuitState {
  openUntil?: number;
  /** Consecutive failed attempts seen while closed. */
  failures: number;
  /**
   * The one delivery allowed through while half-open, and until when its claim
   * holds: a probe whose worker died must not keep the breaker half-open forever.
   */
  probe?: { deliveryId: string; until: number };
  /** How many times the breaker opened, for operators. */
  trips: number;
}

export interface HealthState {
  status: HealthStatus;
  /**
   * Why the endpoint is not active, for the banner (R-SMENGO-HEALTH): 'delivery_exhausted',
   * 'gone', 'failing', 'failing_5_days', 'consecutive_failures', 'drain_failed',
   * 'held_too_long', 'hold_full', 'manual' (or the operator's own reason).
   */
  reason?: string;
  /** epoch ms of the last status change */
  since?: number;
  /**
   * Consecutive failed attempts (Dong Tien counts across deliveries, SPEC §5). Only
   * failures that deliveries report (see shouldReport) are counted, so on presets
   * where the count drives no rule (PresetHealthRules.untracked) it is a lower bound.
   */
  consecutiveFailures: number;
  /** epoch ms of the first failure of the current uninterrupted failure streak (Bird's 5 days) */
  streakStartedAt?: number;
  /** Incremented each time a degradation/suspension/disable episode starts. */
  episode: number;
  /** Notices already sent in the current episode: each goes out at most once per episode. */
  notified?: HealthNotice[];
  circuit?: CircuitState;
  /** Dong Tien: epoch ms when suspension began (14-day hold clock) */
  suspendedAt?: number;
  /** Dong Tien: held deliveries are being released one at a time; one failure stops it. */
  draining?: boolean;
  /** The last manual test delivery, shown next to the enable button (SPEC §5, Smengo). */
  lastTest?: { at: number; ok: boolean };
  /**
   * The latest mass ending (Smengo disable, Bird pause, Dong Tien dead-lettering): every
   * delivery queued before `at` and still pending ends as told. The endpoint also signals
   * them at once; this rule keeps the outcome right for any it could not reach in time
   * (visibility lag) or at all, even after a re-enable.
   */
  endedBefore?: { at: number; endAs: DropEnd; code: 'endpoint_disabled' | 'endpoint_paused' | string };
  /**
   * Never stored by the endpoint: set on the copy handed to a delivery when the endpoint
   * could not be read after the attempt's outcome, so shouldReport reports the outcome.
   */
  unconfirmed?: true;
}

/** Fields a preset's rules never read: outcomes that only change these need no report. */
export type UntrackedField = 'consecutiveFailures' | 'streakStartedAt';

export type HealthInput =
  | { kind: 'attempt_failed'; at: number; code: string; deliveryId: string; replay?: boolean }
  | { kind: 'attempt_succeeded'; at: number; deliveryId: string; replay?: boolean }
  | { kind: 'delivery_exhausted'; at: number; deliveryId: string }
  /** A 410 response. */
  | { kind: 'gone'; at: number; deliveryId: string }
  /** A manual test delivery. */
  | { kind: 'test_result'; at: number; ok: boolean }
  | { kind: 'url_changed'; at: number }
  /** Description / event-type edits (Bird: does NOT clear degradation). */
  | { kind: 'config_edited'; at: number }
  /** Manual pause by the tenant. */
  | { kind: 'pause'; at: number }
  /** Manual resume / enable / re-enable. */
  | { kind: 'resume'; at: number }
  /** Manual disable (operator). */
  | { kind: 'disable'; at: number; reason?: string }
  /** Time passing (Dong Tien's 14-day hold expiry). */
  | { kind: 'tick'; at: number }
  /** Dong Tien: the workflow released the last held delivery. */
  | { kind: 'drain_completed'; at: number }
  /**
   * Dong Tien (issue 14.10): an event found the hold full (DT_HOLD_LIMIT) at publish.
   * Sent by the publish route, which alone counts what the endpoint holds.
   */
  | { kind: 'hold_full'; at: number }
  /** Railhook: a delivery asks to be the half-open probe (see SendDecision.claimProbe). */
  | { kind: 'probe_claim'; at: number; deliveryId: string };

export type HealthEffect =
  | { kind: 'notify'; notice: HealthNotice; episode: number }
  /** Smengo: every pending delivery becomes dead, never sent after re-enable. */
  | { kind: 'kill_pending'; code: 'endpoint_disabled' }
  /** Dong Tien: held deliveries go to dead letters (exhausted). */
  | { kind: 'dead_letter_held'; code: string }
  /** Bird: deliveries still in their schedule stop retrying and end failed (SPEC §5). */
  | { kind: 'fail_pending'; code: 'endpoint_paused' }
  /** Resume: queued deliveries go out (Smengo pause) / Dong Tien drain starts. */
  | { kind: 'release_held' }
  | { kind: 'stop_drain' };

export interface HealthTransition {
  state: HealthState;
  effects: HealthEffect[];
}

/**
 * How a delivery that is dropped ends (R-STATUS): `dead` when the endpoint's disable
 * cancels it (Smengo), `exhausted` when it must stay recoverable as a dead letter
 * (Dong Tien never drops an event), `failed` when it was never attempted because the
 * endpoint could not accept it (Bird paused; an event that slipped past acceptsNewEvents).
 */
export type DropEnd = 'dead' | 'exhausted' | 'failed';

/** What a delivery should do right now, from the endpoint's point of view (read through a cache). */
export type SendDecision =
  | { kind: 'send' }
  | {
      kind: 'defer';
      code: 'endpoint_paused' | 'endpoint_suspended' | 'circuit_open';
      retryInMs: number;
      /**
       * Railhook half-open: no delivery holds the probe. The delivery should send
       * `probe_claim` to the endpoint workflow and decide again with the state it gets back.
       */
      claimProbe?: boolean;
    }
  | { kind: 'drop'; code: 'endpoint_disabled' | 'endpoint_paused'; endAs: DropEnd };

export interface SendOptions {
  /** A manual test delivery: it is how a tenant checks a fix, so it is never held back. */
  isTest?: boolean;
  /** The delivery was created after the current status began (used when createdAt is absent). */
  isNewDelivery?: boolean;
  /** epoch ms the delivery was created; more precise than isNewDelivery against a stale cache. */
  createdAt?: number;
  /** Needed for Railhook's half-open probe. Without it every delivery may probe. */
  deliveryId?: string;
  /** Dong Tien drain: the endpoint workflow released this delivery; its turn to send. */
  drainTurn?: boolean;
}

export type Admission = 'queue' | 'hold' | 'skip';

/** One preset's health rules; the engine dispatches to these by preset name. */
export interface PresetHealthRules {
  apply(state: HealthState, input: HealthInput): HealthTransition;
  sendDecision(state: HealthState, now: number, opts: SendOptions): SendDecision;
  acceptsNewEvents(state: HealthState): Admission;
  /**
   * The streak fields no rule of this preset reads (they are shown as lower bounds).
   * shouldReport leaves out outcomes that change nothing else, so each one named here
   * saves a signal per failed attempt; a field a rule reads must never be listed.
   */
  untracked: readonly UntrackedField[];
  /**
   * True when a successful attempt, from any state, changes no field a rule of this preset
   * reads and has no effect. shouldReport is then false for every success whatever the
   * endpoint's state, so the send activity does not read the endpoint after one (issue 16).
   * A preset whose success can close a breaker, end a streak or recover must say false.
   */
  successNeverReported: boolean;
  /** When the endpoint workflow must send a `tick`, if time alone can change the state. */
  nextWakeAt(state: HealthState): number | undefined;
}

export type HealthRulesTable = Readonly<Record<PresetName, PresetHealthRules>>;

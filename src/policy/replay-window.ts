import { RECOVERY, recoveryOf } from './presets.js';
import type { DeliveryPolicy, PresetName, RecoveryOffer } from './types.js';

/**
 * How long a finished delivery stays open for dead-letter retry and replay (SPEC §3 "manual
 * recovery" and "log / body retention"): the preset's recovery offer says (`RECOVERY`).
 * Smengo offers no manual retry of a delivery, so its deliveries close at once; Bird's
 * attempts live 3 days; Dong Tien replays up to 90 days back.
 */
export function replayWindowSeconds(preset: PresetName): number {
  return RECOVERY[preset].openSeconds;
}

/** When a finished delivery's preset stops letting it be reopened (times in ms). */
export interface ReopenClock {
  /** The delivery's creation (its input's `createdAt`). */
  createdAtMs: number;
  /** When its latest round ended (the run closed). */
  roundEndedAtMs: number;
}

/**
 * Issue 16: the last moment (ms) a finished delivery may still be reopened by a dead-letter
 * retry or a replay, by its preset's recovery offer (SPEC §3 "manual recovery", "log / body
 * retention"): standard and Railhook 30 days from the round's end, Bird 3 days (its attempts'
 * life), Dong Tien 90 days from the event's creation whatever was replayed since
 * (R-DT-REPLAY: "events older than 90 days cannot be replayed"), Smengo never (no manual retry).
 */
export function reopenDeadlineMs(
  offer: Pick<RecoveryOffer, 'openSeconds' | 'openFrom'>,
  at: ReopenClock,
): number {
  const from = offer.openFrom === 'created' ? at.createdAtMs : at.roundEndedAtMs;
  return from + offer.openSeconds * 1000;
}

/**
 * Issue 16: may a finished delivery be reopened now? A pure rule of (preset, creation, round
 * end, now), the same for the reopen itself and for the lists that show what is replayable.
 * A preset Herald does not know offers nothing.
 */
export function mayReopen(preset: string | undefined, at: ReopenClock, nowMs: number): boolean {
  const offer = recoveryOf(preset);
  return offer.openSeconds > 0 && nowMs <= reopenDeadlineMs(offer, at);
}

/**
 * How long a run started before issue 16 stays open after its round ended (`nowMs`): the
 * same deadline, held by the workflow itself; 0 or less closes it. Runs started since then
 * close at once and are reopened as a new run (`mayReopen`).
 */
export function openAfterRoundMs(
  policy: Pick<DeliveryPolicy, 'preset'>,
  createdAtMs: number,
  nowMs: number,
): number {
  return reopenDeadlineMs(RECOVERY[policy.preset], { createdAtMs, roundEndedAtMs: nowMs }) - nowMs;
}

/** R-RH-DLQ: a dead-letter retry grants this many more attempts. */
export const DLQ_RETRY_ATTEMPTS = 3;

const HOUR_MS = 3_600_000;
/** R-BIRD-REPLAY: a window reaches back at most 3 days from the request. */
export const WINDOW_MAX_LOOKBACK_MS = 72 * HOUR_MS;
/** R-BIRD-REPLAY: without `since` the window starts this long before the request. */
export const WINDOW_DEFAULT_MS = 24 * HOUR_MS;

export type WindowBounds =
  | { ok: true; sinceMs: number; untilMs: number }
  | { ok: false; code: 'invalid_window'; path: 'since'; message: string };

/**
 * R-BIRD-REPLAY's window on attempt time, both ends inclusive, from what the tenant sent and
 * when it asked (`nowMs`). `since` defaults to 24 h before the request, not before `until`
 * (issue 14.7: "Pominięcie since rozpoczyna okno 24 godziny przed żądaniem"); `until`
 * defaults to the request, and a future `until` adds nothing. An older `since` is accepted
 * and silently limited to 3 days back. A `since` after a given `until` is refused, also when
 * `since` was left out and its default falls after an old `until`: such a window could only
 * be empty, and the request would spend one of the day's 20 replays on nothing.
 */
export function windowReplayBounds(
  body: { since?: string | undefined; until?: string | undefined },
  nowMs: number,
): WindowBounds {
  const askedUntil = body.until !== undefined ? Date.parse(body.until) : nowMs;
  const askedSince = body.since !== undefined ? Date.parse(body.since) : nowMs - WINDOW_DEFAULT_MS;
  // Only against an `until` the tenant sent: a `since` a moment ahead of this clock (skew)
  // with no `until` is an empty window, as before, not an error.
  if (body.until !== undefined && askedSince > askedUntil)
    return {
      ok: false,
      code: 'invalid_window',
      path: 'since',
      message:
        body.since !== undefined
          ? '`since` is after `until`'
          : '`since` defaults to 24 h before the request, which is after `until`; send `since` to reach older failures',
    };
  const untilMs = Math.min(askedUntil, nowMs);
  const sinceMs = Math.min(Math.max(askedSince, nowMs - WINDOW_MAX_LOOKBACK_MS), untilMs);
  return { ok: true, sinceMs, untilMs };
}

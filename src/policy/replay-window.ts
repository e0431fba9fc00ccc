import { RECOVERY } from './presets.js';
import type { DeliveryPolicy, PresetName } from './types.js';

/**
 * How long a finished delivery stays open for dead-letter retry and replay (SPEC §3 "manual
 * recovery" and "log / body retention"): the preset's recovery offer says (`RECOVERY`).
 * Smengo offers no manual retry of a delivery, so its deliveries close at once; Bird's
 * attempts live 3 days; Dong Tien replays up to 90 days back.
 */
export function replayWindowSeconds(preset: PresetName): number {
  return RECOVERY[preset].openSeconds;
}

/**
 * How long a delivery whose round just ended stays open (its policy's preset's offer), from
 * `nowMs`; 0 or less closes it. Dong Tien's window runs from the event's creation, the
 * others' from the end of the latest round.
 */
export function openAfterRoundMs(policy: Pick<DeliveryPolicy, 'preset'>, createdAtMs: number, nowMs: number): number {
  const offer = RECOVERY[policy.preset];
  const openMs = offer.openSeconds * 1000;
  return offer.openFrom === 'created' ? createdAtMs + openMs - nowMs : openMs;
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

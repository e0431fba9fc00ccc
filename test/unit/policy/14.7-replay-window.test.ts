import { describe, expect, it } from 'vitest';
import { windowReplayBounds } from '../../../src/policy/replay-window.js';

const H = 3_600_000;
const NOW = Date.parse('2025-03-10T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** Issue 14.7, R-BIRD-REPLAY: the window a replay runs over, from the request's bounds. */
describe('14.7 R-BIRD-REPLAY: windowReplayBounds', () => {
  it('14.7 R-BIRD-REPLAY: without `since` the window starts 24 h before the request, whatever `until` is', () => {
    expect(windowReplayBounds({ until: iso(NOW - 2 * H) }, NOW)).toEqual({
      ok: true,
      sinceMs: NOW - 24 * H,
      untilMs: NOW - 2 * H,
    });
    expect(windowReplayBounds({}, NOW)).toEqual({ ok: true, sinceMs: NOW - 24 * H, untilMs: NOW });
    // A future `until` adds nothing; the start still counts from the request.
    expect(windowReplayBounds({ until: iso(NOW + 5 * H) }, NOW)).toEqual({
      ok: true,
      sinceMs: NOW - 24 * H,
      untilMs: NOW,
    });
  });

  it('14.7 R-BIRD-REPLAY: an older `since` is kept up to 3 days back, then silently limited', () => {
    expect(windowReplayBounds({ since: iso(NOW - 48 * H) }, NOW)).toMatchObject({ sinceMs: NOW - 48 * H });
    expect(windowReplayBounds({ since: iso(NOW - 10 * 24 * H), until: iso(NOW - H) }, NOW)).toEqual({
      ok: true,
      sinceMs: NOW - 72 * H,
      untilMs: NOW - H,
    });
    // Both ends inside the reach stay as sent.
    expect(windowReplayBounds({ since: iso(NOW - 30 * H), until: iso(NOW - 29 * H) }, NOW)).toEqual({
      ok: true,
      sinceMs: NOW - 30 * H,
      untilMs: NOW - 29 * H,
    });
  });

  it('14.7 R-BIRD-REPLAY: a `since` after `until`, sent or defaulted, is invalid_window', () => {
    expect(windowReplayBounds({ since: iso(NOW - H), until: iso(NOW - 2 * H) }, NOW)).toMatchObject({
      ok: false,
      code: 'invalid_window',
      path: 'since',
    });
    const r = windowReplayBounds({ until: iso(NOW - 25 * H) }, NOW);
    expect(r).toMatchObject({ ok: false, code: 'invalid_window', path: 'since' });
    expect(r.ok ? '' : r.message).toContain('24 h before the request');
    // No `until`: a `since` a moment ahead (clock skew) is an empty window, not an error.
    expect(windowReplayBounds({ since: iso(NOW + 1000) }, NOW)).toEqual({
      ok: true,
      sinceMs: NOW,
      untilMs: NOW,
    });
  });
});

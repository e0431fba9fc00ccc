// Issue 16: a delivery closes when its round ends, so "may it be reopened now" (dead-letter
// retry, replay) is a pure rule of (preset, creation, round end, now), not a timer in every
// workflow. Each case is a SPEC rule (§3 "manual recovery", "log / body retention").
import { describe, expect, it } from 'vitest';
import { RECOVERY } from '../../../src/policy/presets.js';
import { mayReopen, openAfterRoundMs, reopenDeadlineMs } from '../../../src/policy/replay-window.js';

const DAY = 86_400_000;
const created = Date.parse('2026-01-01T00:00:00.000Z');
const at = (roundEndDay: number) => ({ createdAtMs: created, roundEndedAtMs: created + roundEndDay * DAY });
const day = (n: number) => created + n * DAY;

describe('16: may a finished delivery be reopened now (policy/replay-window.ts)', () => {
  it('R-DT-REPLAY: Dong Tien reopens until 90 days after the event, however late its round ended', () => {
    expect(mayReopen('dongtien', at(0), day(89))).toBe(true);
    expect(mayReopen('dongtien', at(0), day(90))).toBe(true);
    expect(mayReopen('dongtien', at(0), day(90) + 1)).toBe(false);
    // A replay on day 80 whose round ended on day 85: still 90 days from the event, not from day 85.
    expect(mayReopen('dongtien', at(85), day(91))).toBe(false);
    expect(reopenDeadlineMs(RECOVERY.dongtien, at(85))).toBe(day(90));
  });

  it('R-RH-DLQ: Railhook reopens (dead-letter retry, resend) for 30 days from the end of the latest round', () => {
    expect(mayReopen('railhook', at(2), day(32))).toBe(true);
    expect(mayReopen('railhook', at(2), day(32) + 1)).toBe(false);
    // A retry that ended on day 40 opens another 30 days from there.
    expect(mayReopen('railhook', at(40), day(69))).toBe(true);
  });

  it('R-LOG: standard keeps 30 days from the end of the latest round', () => {
    expect(mayReopen('standard', at(1), day(31))).toBe(true);
    expect(mayReopen('standard', at(1), day(31) + 1)).toBe(false);
  });

  it('R-BIRD-REPLAY: Bird reaches its deliveries for 3 days from the round end (its attempts live 3 days)', () => {
    expect(mayReopen('bird', at(0), day(3))).toBe(true);
    expect(mayReopen('bird', at(0), day(3) + 1)).toBe(false);
  });

  it('R-SMENGO-LOG: Smengo never reopens a delivery (no manual retry), not even at once', () => {
    expect(mayReopen('smengo', at(0), day(0))).toBe(false);
  });

  it('16: a preset Herald does not know (an older build, none) reopens nothing', () => {
    expect(mayReopen('martian', at(0), day(0))).toBe(false);
    expect(mayReopen(undefined, at(0), day(0))).toBe(false);
  });

  it('16: a run started before issue 16 holds open exactly the same window (openAfterRoundMs)', () => {
    for (const preset of ['standard', 'railhook', 'bird', 'dongtien', 'smengo'] as const) {
      const ended = day(5);
      const hold = openAfterRoundMs({ preset }, created, ended);
      expect(ended + hold, preset).toBe(reopenDeadlineMs(RECOVERY[preset], at(5)));
    }
    expect(openAfterRoundMs({ preset: 'smengo' }, created, day(5))).toBe(0);
  });
});

import { describe, it, expect } from 'vitest';
import {
  acceptsNewEvents,
  applyHealth,
  foldHealth,
  initialHealth,
  sendDecision,
  type HealthEffect,
  type HealthInput,
  type HealthState,
} from '../../../src/health/index.js';

const T0 = Date.UTC(2025, 2, 3, 12, 0, 0);
const MIN = 60 * 1000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const FIVE_DAYS = 5 * 24 * 60 * 60 * 1000;

const failed = (at: number, extra: Partial<{ replay: boolean; deliveryId: string }> = {}): HealthInput => ({
  kind: 'attempt_failed',
  at,
  code: 'http_500',
  deliveryId: extra.deliveryId ?? 'd1',
  ...(extra.replay ? { replay: true } : {}),
});
const ok = (at: number, replay = false): HealthInput => ({
  kind: 'attempt_succeeded',
  at,
  deliveryId: 'd1',
  ...(replay ? { replay: true } : {}),
});
const notices = (effects: HealthEffect[]) => effects.filter((e) => e.kind === 'notify');
const apply = (state: HealthState, input: HealthInput) => applyHealth('bird', state, input);
const degraded = () => apply(initialHealth(), failed(T0));

describe('R-BIRD-HEALTH degradation', () => {
  it('R-BIRD-HEALTH: the first failed attempt degrades and emails once', () => {
    const { state, effects } = degraded();
    expect(state).toMatchObject({
      status: 'degraded',
      reason: 'failing',
      since: T0,
      consecutiveFailures: 1,
      streakStartedAt: T0,
      episode: 1,
    });
    expect(effects).toEqual([{ kind: 'notify', notice: 'degraded', episode: 1 }]);
  });

  it('R-BIRD-HEALTH: a degraded endpoint still receives deliveries and retries, and no second email', () => {
    const { state, effects } = foldHealth(
      'bird',
      Array.from({ length: 40 }, (_, i) => failed(T0 + i * HOUR, { deliveryId: `d${i}` })),
      initialHealth(),
    );
    expect(state.status).toBe('degraded');
    expect(state.consecutiveFailures).toBe(40);
    expect(notices(effects)).toHaveLength(1);
    expect(sendDecision('bird', state, T0 + 2 * DAY, {})).toEqual({ kind: 'send' });
    expect(acceptsNewEvents('bird', state)).toBe('queue');
  });

  it.each<[string, HealthInput]>([
    ['a successful delivery', ok(T0 + HOUR)],
    ['a successful replay', ok(T0 + HOUR, true)],
    ['a successful test delivery', { kind: 'test_result', at: T0 + HOUR, ok: true }],
    ['a URL change', { kind: 'url_changed', at: T0 + HOUR }],
  ])('R-BIRD-HEALTH: %s clears degradation and resets the failure count', (_name, input) => {
    const s = apply(degraded().state, failed(T0 + MIN)).state;
    const { state, effects } = apply(s, input);
    expect(state).toMatchObject({ status: 'active', consecutiveFailures: 0, since: T0 + HOUR });
    expect(state.streakStartedAt).toBeUndefined();
    expect(effects).toEqual([{ kind: 'notify', notice: 'recovered', episode: 1 }]);
  });

  it.each<[string, HealthInput]>([
    ['a description or event-type edit', { kind: 'config_edited', at: T0 + HOUR }],
    ['a failed test delivery', { kind: 'test_result', at: T0 + HOUR, ok: false }],
    ['a failed replay', failed(T0 + HOUR, { replay: true })],
  ])('R-BIRD-HEALTH: %s does not clear degradation', (_name, input) => {
    const before = degraded().state;
    const { state, effects } = apply(before, input);
    expect(state).toMatchObject({ status: 'degraded', consecutiveFailures: 1, streakStartedAt: T0 });
    expect(effects).toEqual([]);
  });

  it('R-BIRD-HEALTH: replay failures never start a degradation either', () => {
    const { state, effects } = apply(initialHealth(), failed(T0, { replay: true }));
    expect(state).toEqual(initialHealth());
    expect(effects).toEqual([]);
  });

  it('R-BIRD-HEALTH: a failure after recovery starts another degradation period with its own email', () => {
    const { effects, state } = foldHealth(
      'bird',
      [failed(T0), failed(T0 + MIN), ok(T0 + HOUR), failed(T0 + 2 * HOUR), failed(T0 + 3 * HOUR)],
      initialHealth(),
    );
    expect(notices(effects)).toEqual([
      { kind: 'notify', notice: 'degraded', episode: 1 },
      { kind: 'notify', notice: 'recovered', episode: 1 },
      { kind: 'notify', notice: 'degraded', episode: 2 },
    ]);
    expect(state).toMatchObject({ status: 'degraded', episode: 2, streakStartedAt: T0 + 2 * HOUR });
  });
});

describe('R-BIRD-HEALTH pause after 5 days', () => {
  // Failures every 10 hours, the last scheduled retry gap.
  const streak = (until: number) => {
    const inputs: HealthInput[] = [];
    for (let at = T0; at <= until; at += 10 * HOUR) inputs.push(failed(at, { deliveryId: `d${at}` }));
    return inputs;
  };

  it('R-BIRD-HEALTH: a failure just under 5 days into the streak does not pause', () => {
    const { state } = foldHealth(
      'bird',
      [...streak(T0 + 4 * DAY), failed(T0 + FIVE_DAYS - 1)],
      initialHealth(),
    );
    expect(state.status).toBe('degraded');
  });

  it('R-BIRD-HEALTH: the first failure at 5 days or later pauses, fails pending deliveries, one email', () => {
    const before = foldHealth('bird', streak(T0 + 4 * DAY), initialHealth()).state;
    const { state, effects } = apply(before, failed(T0 + FIVE_DAYS));
    expect(state).toMatchObject({
      status: 'paused',
      reason: 'failing_5_days',
      since: T0 + FIVE_DAYS,
      episode: 1,
    });
    expect(effects).toEqual([
      { kind: 'fail_pending', code: 'endpoint_paused' },
      { kind: 'notify', notice: 'paused', episode: 1 },
    ]);
    // Later failures of attempts still in flight change nothing and send nothing.
    const later = foldHealth('bird', [failed(T0 + 6 * DAY), failed(T0 + 7 * DAY)], state);
    expect(later.effects).toEqual([]);
    expect(later.state).toBe(state);
  });

  it('R-BIRD-HEALTH: a success in between restarts the 5-day clock', () => {
    const { state } = foldHealth(
      'bird',
      [failed(T0), ok(T0 + 3 * DAY), failed(T0 + 3 * DAY + HOUR), failed(T0 + FIVE_DAYS + HOUR)],
      initialHealth(),
    );
    expect(state).toMatchObject({ status: 'degraded', streakStartedAt: T0 + 3 * DAY + HOUR });
  });

  it('R-BIRD-HEALTH: replay failures do not extend the streak into a pause', () => {
    const { state } = foldHealth(
      'bird',
      [failed(T0), failed(T0 + FIVE_DAYS, { replay: true }), failed(T0 + 6 * DAY, { replay: true })],
      initialHealth(),
    );
    expect(state.status).toBe('degraded');
  });

  const pausedByHealth = () =>
    foldHealth('bird', [failed(T0), failed(T0 + FIVE_DAYS)], initialHealth()).state;

  it('R-BIRD-HEALTH: a paused endpoint receives no events: new ones are never attempted, pending ones end failed', () => {
    const s = pausedByHealth();
    expect(acceptsNewEvents('bird', s)).toBe('skip');
    expect(sendDecision('bird', s, T0 + 6 * DAY, {})).toEqual({
      kind: 'drop',
      code: 'endpoint_paused',
      endAs: 'failed',
    });
  });

  it('R-BIRD-HEALTH: paused never resumes by itself: not by success, test, URL change or time', () => {
    const s = pausedByHealth();
    const { state, effects } = foldHealth(
      'bird',
      [
        ok(T0 + 6 * DAY),
        ok(T0 + 6 * DAY, true),
        { kind: 'test_result', at: T0 + 6 * DAY, ok: true },
        { kind: 'url_changed', at: T0 + 6 * DAY },
        { kind: 'tick', at: T0 + 60 * DAY },
      ],
      s,
    );
    expect(state.status).toBe('paused');
    expect(effects).toEqual([]);
  });

  it('R-BIRD-HEALTH: writing status active resumes with a fresh streak; the next failure is a new episode', () => {
    const resumed = apply(pausedByHealth(), { kind: 'resume', at: T0 + 7 * DAY });
    expect(resumed.state).toMatchObject({ status: 'active', consecutiveFailures: 0 });
    expect(resumed.state.streakStartedAt).toBeUndefined();
    expect(resumed.effects).toEqual([{ kind: 'notify', notice: 'recovered', episode: 1 }]);
    expect(sendDecision('bird', resumed.state, T0 + 7 * DAY, {})).toEqual({ kind: 'send' });

    const next = apply(resumed.state, failed(T0 + 8 * DAY));
    expect(next.state).toMatchObject({ status: 'degraded', episode: 2, streakStartedAt: T0 + 8 * DAY });
    expect(notices(next.effects)).toEqual([{ kind: 'notify', notice: 'degraded', episode: 2 }]);
  });

  it('R-BIRD-HEALTH: writable statuses are active and paused: a manual pause fails pending work, no email', () => {
    const { state, effects } = apply(initialHealth(), { kind: 'pause', at: T0 });
    expect(state).toMatchObject({ status: 'paused', reason: 'manual', episode: 0 });
    expect(effects).toEqual([{ kind: 'fail_pending', code: 'endpoint_paused' }]);
    expect(acceptsNewEvents('bird', state)).toBe('skip');
    const back = apply(state, { kind: 'resume', at: T0 + HOUR });
    expect(back.state.status).toBe('active');
    expect(back.effects).toEqual([]);
  });

  it('R-BIRD-HEALTH: resume of a degraded endpoint is not one of the things that clear degradation', () => {
    const s = degraded().state;
    expect(apply(s, { kind: 'resume', at: T0 + HOUR }).state).toBe(s);
  });

  it('R-BIRD-HEALTH: exhaustion and 410 are ordinary failures on Bird', () => {
    const s = degraded().state;
    expect(apply(s, { kind: 'delivery_exhausted', at: T0 + DAY, deliveryId: 'd1' }).state).toBe(s);
    expect(apply(s, { kind: 'gone', at: T0 + DAY, deliveryId: 'd1' }).state).toBe(s);
  });

  it('R-BIRD-HEALTH: an operator disable is a pause the owner is told about', () => {
    const { state, effects } = apply(initialHealth(), { kind: 'disable', at: T0, reason: 'abuse' });
    expect(state).toMatchObject({ status: 'paused', reason: 'abuse', episode: 1 });
    expect(effects).toEqual([
      { kind: 'fail_pending', code: 'endpoint_paused' },
      { kind: 'notify', notice: 'paused', episode: 1 },
    ]);
  });

  it('R-BIRD-HEALTH: a test delivery still goes out while paused', () => {
    expect(sendDecision('bird', pausedByHealth(), T0 + 6 * DAY, { isTest: true })).toEqual({ kind: 'send' });
  });
});

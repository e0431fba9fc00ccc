// Issue 16: the send activity reads the endpoint after a success only when the preset's
// report decision could depend on it. The declaration each preset makes
// (successNeverReported) is checked here against its rules, not taken on trust.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyHealth,
  foldHealth,
  initialHealth,
  shouldReport,
  successNeedsReadAfter,
  type HealthInput,
  type HealthState,
  type PresetName,
} from '../../../src/health/index.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

/** Any health state a stored endpoint could hold, reachable or not (never `unconfirmed`). */
const anyState: fc.Arbitrary<HealthState> = fc.record(
  {
    status: fc.constantFrom('active', 'degraded', 'paused', 'suspended', 'disabled'),
    reason: fc.constantFrom('manual', 'gone', 'delivery_exhausted', 'failing', 'consecutive_failures'),
    since: fc.integer({ min: T0 - 10 ** 9, max: T0 }),
    consecutiveFailures: fc.nat({ max: 20 }),
    streakStartedAt: fc.integer({ min: T0 - 10 ** 9, max: T0 }),
    episode: fc.nat({ max: 5 }),
    notified: fc.subarray(['disabled', 'degraded', 'suspended', 'recovered', 'paused'] as const),
    circuit: fc.record(
      {
        failures: fc.nat({ max: 10 }),
        trips: fc.nat({ max: 3 }),
        openUntil: fc.integer({ min: T0 - 10 ** 6, max: T0 + 10 ** 6 }),
      },
      { requiredKeys: ['failures', 'trips'] },
    ),
    suspendedAt: fc.integer({ min: T0 - 10 ** 9, max: T0 }),
    draining: fc.boolean(),
  },
  { requiredKeys: ['status', 'consecutiveFailures', 'episode'] },
);

const success = (at = T0): HealthInput => ({ kind: 'attempt_succeeded', at, deliveryId: 'dlv_1' });

describe('issue 16, 14.4: which successes are judged without a read of the endpoint after them', () => {
  it.each<PresetName>(['standard', 'smengo'])(
    'R-SMENGO-HEALTH: under %s a success is never reported, from any state, so it needs no read after it',
    (preset) => {
      expect(successNeedsReadAfter(preset)).toBe(false);
      fc.assert(
        fc.property(anyState, fc.boolean(), (state, replay) => {
          const input: HealthInput = { ...success(), ...(replay ? { replay: true } : {}) };
          expect(shouldReport(preset, state, input)).toBe(false);
          expect(applyHealth(preset, state, input).effects).toEqual([]);
        }),
        { numRuns: 500 },
      );
    },
  );

  it.each<[PresetName, HealthInput[]]>([
    // R-RH-DEFER: the breaker's count of failures while closed.
    ['railhook', [{ kind: 'attempt_failed', at: T0 - 1000, code: 'http_500', deliveryId: 'dlv_0' }]],
    // R-BIRD-HEALTH: the 5-day clock started by the first failure.
    ['bird', [{ kind: 'attempt_failed', at: T0 - 1000, code: 'http_500', deliveryId: 'dlv_0' }]],
    // R-DT-HEALTH: the consecutive failures that suspend.
    ['dongtien', [{ kind: 'attempt_failed', at: T0 - 1000, code: 'http_500', deliveryId: 'dlv_0' }]],
  ])('under %s a success after a failure is reported, so it is judged on a read after it', (preset, before) => {
    expect(successNeedsReadAfter(preset)).toBe(true);
    const afterFailure = foldHealth(preset, before, initialHealth()).state;
    expect(shouldReport(preset, afterFailure, success())).toBe(true);
    // The same success on the state read before that failure would have been left out:
    // the read after the outcome is what sees the failure (issue 14.4).
    expect(shouldReport(preset, initialHealth(), success())).toBe(false);
  });
});

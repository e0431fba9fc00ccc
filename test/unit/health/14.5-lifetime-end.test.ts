// Issue 14.5 (R-SMENGO-HEALTH, R-RH-LIFETIME on `standard`): which lifetime ends count as an
// exhausted delivery for endpoint health. The pure rule over the attempt log; the
// end-to-end proof (a 100 h pause that does not disable) is in test/workflows/14.5-*.
import { describe, expect, it } from 'vitest';
import { lifetimeEndCounts, type LogRow } from '../../../src/health/lifetime-end.js';

const failed = (round = 1, code = 'http_500'): LogRow => ({ kind: 'attempt', round, code });
const deferred = (round = 1, code = 'endpoint_paused'): LogRow => ({ kind: 'deferral', round, code });

describe('14.5 lifetime end and endpoint health', () => {
  it('14.5 R-SMENGO-HEALTH: a delivery only ever deferred (paused past 96 h) does not count', () => {
    expect(lifetimeEndCounts([deferred(), deferred(), deferred()], 1)).toBe(false);
    expect(lifetimeEndCounts([], 1)).toBe(false);
  });

  it('14.5 R-SMENGO-HEALTH: a delivery whose last attempt failed when the lifetime ran out counts', () => {
    expect(lifetimeEndCounts([failed(), failed(), failed()], 1)).toBe(true);
    // Deferred earlier, then failing again until the end: the receiver ran it out.
    expect(lifetimeEndCounts([failed(), deferred(), deferred(), failed()], 1)).toBe(true);
  });

  it('14.5 R-SMENGO-HEALTH: failures followed by a pause that outlasts the lifetime do not count', () => {
    expect(lifetimeEndCounts([failed(), failed(), deferred(), deferred()], 1)).toBe(false);
  });

  it("14.5 R-SMENGO-HEALTH: Herald's own errors and earlier rounds are not the receiver's failures", () => {
    // Issue 13.5: a spent worker_error attempt never reaches endpoint health.
    expect(lifetimeEndCounts([deferred(), failed(1, 'worker_error'), { kind: 'lease_expired', round: 1, code: 'lease_expired' }], 1)).toBe(false);
    expect(lifetimeEndCounts([failed(), failed(1, 'worker_error')], 1)).toBe(true);
    // A replay opened round 2 and was only deferred: round 1's failures are not this lifetime's.
    expect(lifetimeEndCounts([failed(1), failed(1), deferred(2)], 2)).toBe(false);
    expect(lifetimeEndCounts([failed(1), failed(1)], 2)).toBe(false);
  });
});

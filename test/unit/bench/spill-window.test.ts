import { describe, expect, it } from 'vitest';
import { maxInOneSecond } from '../../../bench/scenarios.js';

// The spill-over scenario reports the rate-limited endpoint's busiest second (R-RH-DEFER).
describe('bench: busiest one-second window', () => {
  it('R-RH-DEFER counts the most receipts any window of one second holds, in any input order', () => {
    expect(maxInOneSecond([1300, 0, 200, 1100, 400, 1000, 1200])).toBe(5);
    expect(maxInOneSecond([0, 1000, 2000, 3000])).toBe(1);
    expect(maxInOneSecond([])).toBe(0);
  });
});

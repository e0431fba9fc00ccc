import { describe, expect, it } from 'vitest';
import { eagerAllowance } from '../../src/api/eager-allowance.js';
import { loadConfig } from '../../src/config.js';

/**
 * Issue 16 (5), R-SMENGO-FAIR: an eager start skips matching's fairness by endpoint, so each
 * endpoint's deliveries start eagerly only at a steady endpoint's pace; a burst's excess is
 * started plainly and queues behind itself in matching.
 */
describe('16 (5) R-SMENGO-FAIR: eager starts per endpoint', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('16 (5) R-SMENGO-FAIR: a burst to one endpoint starts eagerly only its allowance; the rest queue in matching', () => {
    const c = clock();
    const eager = eagerAllowance(5, c.now)!;
    const burst = Array.from({ length: 500 }, () => eager('ep_burst'));
    expect(burst.filter(Boolean)).toHaveLength(5);
    expect(burst.slice(0, 5)).toEqual([true, true, true, true, true]);
  });

  it('16 (5) R-SMENGO-FAIR: another endpoint publishing during the burst still starts eagerly', () => {
    const c = clock();
    const eager = eagerAllowance(5, c.now)!;
    for (let i = 0; i < 500; i++) eager('ep_burst');
    // A quiet endpoint at 5 events a second for 10 s: every one eager.
    const quiet: boolean[] = [];
    for (let i = 0; i < 50; i++) {
      quiet.push(eager('ep_quiet'));
      eager('ep_burst');
      c.advance(200);
    }
    expect(quiet.every(Boolean)).toBe(true);
  });

  it('16 (5) R-SMENGO-FAIR: an endpoint that stops bursting gets its eager starts back at the rate', () => {
    const c = clock();
    const eager = eagerAllowance(2, c.now)!;
    for (let i = 0; i < 10; i++) eager('ep_a');
    expect(eager('ep_a')).toBe(false);
    c.advance(500);
    expect(eager('ep_a')).toBe(true);
    expect(eager('ep_a')).toBe(false);
  });

  it('16 (5): 0 turns eager starts off; the default is 5 a second per endpoint', () => {
    expect(eagerAllowance(0)).toBeUndefined();
    expect(loadConfig({}).HERALD_EAGER_STARTS_PER_ENDPOINT).toBe(5);
    expect(() => loadConfig({ HERALD_EAGER_STARTS_PER_ENDPOINT: '-1' })).toThrow(/HERALD_EAGER_STARTS_PER_ENDPOINT/);
  });
});

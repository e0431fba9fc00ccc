import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryHarness, attemptGapsMs, statusResponder } from '../helpers/delivery-harness.js';

describe('harness smoke', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await DeliveryHarness.create();
  });
  afterAll(async () => h?.close());

  it('R-JITTER: standard runs 8 attempts over ~28 h and exhausts', async () => {
    const { state, requests } = await h.deliver({ preset: 'standard', respond: statusResponder(500) });
    expect(state.status).toBe('exhausted');
    expect(requests).toHaveLength(8);
    const gaps = attemptGapsMs(state);
    const base = [5, 300, 1800, 7200, 18000, 36000, 36000];
    gaps.forEach((g, i) => {
      expect(g).toBeGreaterThanOrEqual(base[i]! * 900 - 100);
      expect(g).toBeLessThanOrEqual(base[i]! * 1100 + 1000);
    });
  });
});

import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../../src/shared/ttl-cache.js';
import { boundedMap, tryEach } from '../../../src/shared/bounded-map.js';

describe('shared/ttl-cache: the one read-through cache', () => {
  it('issue 15: concurrent misses share one load; a value is reused within its TTL only', async () => {
    let t = 0;
    let loads = 0;
    const c = new TtlCache<number>({ ttlMs: 1000, now: () => t });
    const load = async () => ++loads;
    const [a, b] = await Promise.all([c.get('k', load), c.get('k', load)]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    t = 999;
    expect(await c.get('k', load)).toBe(1);
    t = 1000;
    expect(await c.get('k', load)).toBe(2);
  });

  it('issue 15: a failed load is not remembered (an outage is asked again, never cached)', async () => {
    const c = new TtlCache<number>({ ttlMs: 60_000 });
    await expect(c.get('k', () => Promise.reject(new Error('unavailable')))).rejects.toThrow('unavailable');
    expect(await c.get('k', async () => 7)).toBe(7);
  });

  it('issue 15: past the TTL but within maxStale the last value answers while one refresh runs', async () => {
    let t = 0;
    let release!: (v: number) => void;
    let loads = 0;
    const c = new TtlCache<number>({ ttlMs: 10, maxStaleMs: 100, now: () => t });
    await c.get('k', async () => 1);
    t = 50;
    const slow = () => (loads++, new Promise<number>((r) => (release = r)));
    expect(await c.get('k', slow)).toBe(1);
    expect(await c.get('k', slow)).toBe(1);
    expect(loads).toBe(1);
    release(2);
    await new Promise((r) => setTimeout(r, 0));
    expect(await c.get('k', slow)).toBe(2);
  });

  it('issue 15: entries are bounded, oldest dropped first', async () => {
    const c = new TtlCache<string>({ ttlMs: 60_000, max: 2 });
    for (const k of ['a', 'b', 'c']) await c.get(k, async () => k);
    let reloaded = false;
    await c.get('a', async () => ((reloaded = true), 'a'));
    expect(reloaded).toBe(true);
  });
});

describe('shared/bounded-map', () => {
  it('issue 15: at most n in flight, results in the items’ order', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await boundedMap([5, 1, 3, 2], 2, async (x) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, x));
      inFlight--;
      return x * 10;
    });
    expect(out).toEqual([50, 10, 30, 20]);
    expect(most).toBe(2);
  });

  it('issue 15: a bulk operation tries every item and reports each refusal by its code', async () => {
    const refusal = Object.assign(new Error('no'), { code: 'not_a_dead_letter' });
    const r = await tryEach(
      ['a', 'b', 'c'],
      2,
      async (id) => {
        if (id === 'b') throw refusal;
        if (id === 'c') throw new Error('boom');
        return id;
      },
      { codeOf: (e) => (e === refusal ? refusal.code : undefined), idOf: (id) => id, what: 'test' },
    );
    expect(r).toEqual({
      done: ['a'],
      failed: [
        { id: 'b', code: 'not_a_dead_letter' },
        { id: 'c', code: 'internal_error' },
      ],
    });
  });
});

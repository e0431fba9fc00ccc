import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InlineSlots, inlineSlotsFor } from '../../src/activities/inline-slots.js';

/**
 * Issue 16: a first attempt refused an inline slot costs a second workflow task and an
 * activity task; a slow receiver must still not hold workflow-task slots beyond its part.
 */
describe('issue 16: inline slots for first attempts', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());
  const slots = (total: number, perEndpoint: number, waitMs: number, waiters = 10) =>
    new InlineSlots(total, perEndpoint, waitMs, waiters, () => Date.now());

  it('R-SMENGO-FAIR: one endpoint holds at most its part; others still go inline', async () => {
    const s = slots(4, 2, 0);
    expect(await s.enter('ep_a')).toBeDefined();
    expect(await s.enter('ep_a')).toBeDefined();
    expect(await s.enter('ep_a')).toBeUndefined();
    expect(await s.enter('ep_b')).toBeDefined();
    expect(s.held('ep_a')).toBe(2);
  });

  it('a first attempt behind a fast send of its endpoint waits and takes the slot that send frees', async () => {
    const s = slots(4, 1, 250);
    const first = (await s.enter('ep_fast'))!;
    const second = s.enter('ep_fast');
    expect(s.waiting()).toBe(1);
    await vi.advanceTimersByTimeAsync(20);
    first.leave();
    const got = await second;
    expect(got).toBeDefined();
    expect(s.held('ep_fast')).toBe(1);
    expect(s.waiting()).toBe(0);
    // A slot is given back once, however often its holder leaves.
    first.leave();
    expect(s.held('ep_fast')).toBe(1);
  });

  it('the wait is bounded: nothing freed within it, the attempt goes out as the activity', async () => {
    const s = slots(4, 1, 250);
    await s.enter('ep');
    const second = s.enter('ep');
    await vi.advanceTimersByTimeAsync(251);
    expect(await second).toBeUndefined();
    expect(s.waiting()).toBe(0);
  });

  it('a slow endpoint, its sends older than the wait, sends its next first attempts as the activity at once', async () => {
    const s = slots(4, 1, 250);
    await s.enter('ep_slow');
    await vi.advanceTimersByTimeAsync(300);
    const started = Date.now();
    expect(await s.enter('ep_slow')).toBeUndefined();
    expect(Date.now()).toBe(started);
    expect(s.waiting()).toBe(0);
  });

  it('all slots full: a first attempt waits for any endpoint\'s young send, not for old ones', async () => {
    const s = slots(2, 2, 250);
    const old = (await s.enter('ep_slow'))!;
    await vi.advanceTimersByTimeAsync(300);
    expect(await s.enter('ep_other')).toBeDefined();
    // ep_other's send is young: worth waiting for.
    const third = s.enter('ep_third');
    expect(s.waiting()).toBe(1);
    old.leave();
    expect(await third).toBeDefined();
    // Now both slots are held again, ep_third's young.
    await vi.advanceTimersByTimeAsync(300);
    // Every send in flight is older than the wait: no point waiting.
    expect(await s.enter('ep_fourth')).toBeUndefined();
  });

  it('a freed slot goes to the oldest waiter it can serve, not to one whose endpoint is still full', async () => {
    const s = slots(3, 1, 250);
    const a = (await s.enter('ep_a'))!;
    const b = (await s.enter('ep_b'))!;
    const order: string[] = [];
    const waitA = s.enter('ep_a').then((x) => x && order.push('a'));
    const waitB = s.enter('ep_b').then((x) => x && order.push('b'));
    b.leave();
    await waitB;
    expect(order).toEqual(['b']);
    a.leave();
    await waitA;
    expect(order).toEqual(['b', 'a']);
  });

  it('waiters hold workflow-task slots, so only so many may wait; the rest go out as the activity', async () => {
    const s = slots(1, 1, 250, 2);
    await s.enter('ep');
    void s.enter('ep');
    void s.enter('ep');
    expect(s.waiting()).toBe(2);
    expect(await s.enter('ep')).toBeUndefined();
  });

  it('by default half the workflow-task slots run inline and at most half of the rest wait', () => {
    const s = inlineSlotsFor(0.25, 40, undefined, 250);
    expect([s.total, s.perEndpoint, s.maxWaiters]).toEqual([20, 5, 10]);
    expect(inlineSlotsFor(0.25, 40, 40, 250).maxWaiters).toBe(0);
  });
});

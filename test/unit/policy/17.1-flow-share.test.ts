import { describe, expect, it } from 'vitest';
import { SendShare, SHARE_RECHECK_MAX_MS, SHARE_RECHECK_MS, shareLimit } from '../../../src/policy/flow-share.js';

describe('R-RH-DEFER busy concurrency slots: the default share of a worker\'s send slots', () => {
  it('R-RH-DEFER: the share is a ceiling of the slots, at least one and never more than all', () => {
    expect(shareLimit(0.25, 200)).toBe(50);
    expect(shareLimit(0.25, 2)).toBe(1);
    expect(shareLimit(0.01, 10)).toBe(1);
    expect(shareLimit(1, 20)).toBe(20);
  });

  it('R-RH-DEFER: an endpoint over its share is refused; other endpoints are not', () => {
    const s = new SendShare(2);
    expect(s.tryEnter('ep_slow', 'd1')).toBe(true);
    expect(s.tryEnter('ep_slow', 'd2')).toBe(true);
    expect(s.tryEnter('ep_slow', 'd3')).toBe(false);
    expect(s.tryEnter('ep_quiet', 'q1')).toBe(true);
    expect(s.held('ep_slow')).toBe(2);
  });

  it('R-RH-DEFER: a freed slot wakes the oldest refused delivery, once', () => {
    const s = new SendShare(1);
    s.tryEnter('ep', 'd1');
    s.tryEnter('ep', 'd2');
    s.tryEnter('ep', 'd3');
    s.tryEnter('ep', 'd2'); // refused again: keeps its place
    expect(s.nextWaiter('ep')).toBeUndefined(); // no slot free yet
    s.leave('ep');
    expect(s.nextWaiter('ep')).toBe('d2');
    expect(s.tryEnter('ep', 'd2')).toBe(true);
    s.leave('ep');
    expect(s.nextWaiter('ep')).toBe('d3');
    expect(s.nextWaiter('ep')).toBeUndefined();
    expect(s.held('ep')).toBe(0);
  });

  it('R-RH-DEFER: a waiter that got a slot on its own leaves the wait list', () => {
    const s = new SendShare(1);
    s.tryEnter('ep', 'd1');
    s.tryEnter('ep', 'd2');
    s.leave('ep');
    expect(s.tryEnter('ep', 'd2')).toBe(true);
    s.leave('ep');
    expect(s.nextWaiter('ep')).toBeUndefined();
  });

  it('R-RH-DEFER: a send holding its endpoint\'s turn (drain, probe) is counted but never refused', () => {
    const s = new SendShare(1);
    expect(s.tryEnter('ep', 'd1')).toBe(true);
    expect(s.tryEnter('ep', 'turn', true)).toBe(true);
    expect(s.held('ep')).toBe(2);
    s.leave('ep');
    expect(s.tryEnter('ep', 'd3')).toBe(false);
  });

  it('R-RH-DEFER, issue 16: an inline first attempt asks whether its endpoint is full; only then is it on the wait list, and it takes no slot', () => {
    const s = new SendShare(1);
    expect(s.waitIfFull('ep', 'd0')).toBe(false);
    expect(s.held('ep')).toBe(0);
    expect(s.nextWaiter('ep')).toBeUndefined();
    s.tryEnter('ep', 'd1');
    expect(s.waitIfFull('ep', 'd2')).toBe(true);
    expect(s.held('ep')).toBe(1);
    s.leave('ep');
    expect(s.nextWaiter('ep')).toBe('d2');
  });

  it('R-RH-DEFER, issue 16: a refused send asks again later the further back it waits, so a burst\'s waiters do not all ask again at once', () => {
    const s = new SendShare(2);
    s.tryEnter('ep', 'a');
    s.tryEnter('ep', 'b');
    for (let i = 0; i < 50; i++) expect(s.tryEnter('ep', `w${i}`)).toBe(false);
    // The first in line: the plain recheck; 2 slots, so every 2 ahead add one more.
    expect(s.recheckInMs('ep', 'w0')).toBe(SHARE_RECHECK_MS);
    expect(s.recheckInMs('ep', 'w1')).toBe(SHARE_RECHECK_MS * 1.5);
    expect(s.recheckInMs('ep', 'w4')).toBe(SHARE_RECHECK_MS * 3);
    // However far back, a lost wake is not waited out for longer than the cap.
    expect(s.recheckInMs('ep', 'w49')).toBe(SHARE_RECHECK_MAX_MS);
    // The wait grows up to the cap and no further: 17 ahead of 2 slots is 9.5 rechecks.
    expect(s.recheckInMs('ep', 'w17')).toBe(SHARE_RECHECK_MS * 9.5);
    expect(s.recheckInMs('ep', 'w18')).toBe(SHARE_RECHECK_MAX_MS);
    // Woken, the first leaves the line and the next one is first.
    s.leave('ep');
    expect(s.nextWaiter('ep')).toBe('w0');
    expect(s.recheckInMs('ep', 'w1')).toBe(SHARE_RECHECK_MS);
    // Another endpoint's line is its own.
    s.tryEnter('other', 'o1');
    s.tryEnter('other', 'o2');
    s.tryEnter('other', 'o3');
    expect(s.recheckInMs('other', 'o3')).toBe(SHARE_RECHECK_MS);
  });
});

import { describe, expect, it } from 'vitest';
import { SendShare, shareLimit } from '../../../src/policy/flow-share.js';

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
});

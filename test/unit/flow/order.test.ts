import { describe, expect, it } from 'vitest';
import {
  DONE_KEPT,
  MAX_ORDERED_QUEUE,
  MAX_STALE_CHECK_MS,
  ORDER_DEFERRAL_CODE,
  ORDER_RECHECK_MS,
  STALE_HEAD_MS,
  askTurn,
  clearOrder,
  emptyOrder,
  enqueue,
  finish,
  headChecked,
  staleHeadAt,
} from '../../../src/flow/order.js';

// Issue 17 (R-RH-DEFER "ordered delivery waiting for the previous delivery"): the pure order
// bookkeeping an ordered endpoint's workflow keeps.
describe('R-RH-DEFER: ordered delivery bookkeeping (issue 17)', () => {
  it('R-RH-DEFER: only the head of the queue may send; later ones wait as a deferral, not an attempt', () => {
    const s = emptyOrder();
    enqueue(s, ['d1', 'd2', 'd3'], 0);
    expect(s.headSeenAt).toBe(0);
    expect(s.queue).toEqual(['d1', 'd2', 'd3']);
    expect(askTurn(s, 'd2', 10)).toEqual({ ok: false, code: ORDER_DEFERRAL_CODE, retryInMs: ORDER_RECHECK_MS });
    expect(askTurn(s, 'd3', 10)).toMatchObject({ ok: false, code: 'waiting_for_previous' });
    expect(askTurn(s, 'd1', 10)).toEqual({ ok: true });
    // The head stays the head through its retries and backoff: it asks again and again.
    expect(askTurn(s, 'd1', 5_000)).toEqual({ ok: true });
    expect(askTurn(s, 'd2', 5_000).ok).toBe(false);
  });

  it('R-RH-DEFER: a round that ends (any final status) releases the next one, which is woken', () => {
    const s = emptyOrder();
    enqueue(s, ['d1', 'd2', 'd3'], 0);
    expect(finish(s, 'd1', 100)).toEqual(['d2']);
    expect(askTurn(s, 'd2', 100)).toEqual({ ok: true });
    expect(askTurn(s, 'd3', 100).ok).toBe(false);
    // One that ends while waiting (a disable, its lifetime) leaves without waking anybody.
    expect(finish(s, 'd3', 200)).toEqual([]);
    expect(s.queue).toEqual(['d2']);
    expect(finish(s, 'd2', 300)).toEqual([]);
    expect(s.queue).toEqual([]);
    expect(s.headSeenAt).toBeUndefined();
  });

  it('R-RH-DEFER: a repeated publish does not move or re-add a delivery; enqueueing more keeps the head', () => {
    const s = emptyOrder();
    enqueue(s, ['d1', 'd2'], 0);
    finish(s, 'd1', 10);
    // The same publish repeated (R-IDEMP): d1 finished, d2 already queued.
    enqueue(s, ['d1', 'd2'], 20);
    expect(s.queue).toEqual(['d2']);
    enqueue(s, ['d3'], 30);
    expect(s.queue).toEqual(['d2', 'd3']);
    expect(s.done.length).toBeLessThanOrEqual(DONE_KEPT);
  });

  it('R-RH-DEFER: a dead-letter retry or replay of a finished delivery joins the queue at its tail', () => {
    const s = emptyOrder();
    enqueue(s, ['d1', 'd2', 'd3'], 0);
    finish(s, 'd1', 10); // d1 exhausted: a dead letter
    // Retried: it does not hold back d2 and d3, accepted before the retry.
    expect(askTurn(s, 'd1', 20).ok).toBe(false);
    expect(s.queue).toEqual(['d2', 'd3', 'd1']);
    finish(s, 'd2', 30);
    finish(s, 'd3', 40);
    expect(askTurn(s, 'd1', 50)).toEqual({ ok: true });
  });

  it('R-RH-DEFER: a delivery the endpoint never heard of joins at the tail; alone it is the head', () => {
    const s = emptyOrder();
    expect(askTurn(s, 'x', 0)).toEqual({ ok: true });
    expect(s.headSeenAt).toBe(0);
    expect(askTurn(s, 'y', 1).ok).toBe(false);
    expect(s.queue).toEqual(['x', 'y']);
  });

  it('R-RH-DEFER: a head silent for STALE_HEAD_MS is looked up; one not running is dropped and the next woken', () => {
    const s = emptyOrder();
    enqueue(s, ['gone'], 0);
    // Nobody waits behind it: nothing to look up.
    expect(staleHeadAt(s)).toBeUndefined();
    enqueue(s, ['d2', 'd3'], 5);
    expect(staleHeadAt(s)).toBe(STALE_HEAD_MS);
    // Still running (a long backoff): kept, and looked up less and less often.
    expect(headChecked(s, 'gone', true, STALE_HEAD_MS)).toEqual([]);
    expect(staleHeadAt(s)).toBe(STALE_HEAD_MS + 2 * STALE_HEAD_MS);
    headChecked(s, 'gone', true, 3 * STALE_HEAD_MS);
    expect(staleHeadAt(s)).toBe(3 * STALE_HEAD_MS + 4 * STALE_HEAD_MS);
    for (let i = 0; i < 20; i++) headChecked(s, 'gone', true, 0);
    expect(staleHeadAt(s)).toBe(MAX_STALE_CHECK_MS);
    // Terminated: dropped, d2 is woken; a new head starts with the shortest silence.
    expect(headChecked(s, 'gone', false, 1_000)).toEqual(['d2']);
    expect(staleHeadAt(s)).toBe(1_000 + STALE_HEAD_MS);
    expect(askTurn(s, 'd2', 2_000)).toEqual({ ok: true });
    expect(staleHeadAt(s)).toBe(2_000 + STALE_HEAD_MS);
    // A late answer about a delivery no longer the head changes nothing.
    expect(headChecked(s, 'gone', false, 3_000)).toEqual([]);
    expect(s.queue).toEqual(['d2', 'd3']);
  });

  it('R-RH-DEFER: the queue is bounded; past it a delivery waits for room and then joins at the tail', () => {
    const s = emptyOrder();
    const ids = Array.from({ length: MAX_ORDERED_QUEUE + 2 }, (_, i) => `d${i}`);
    enqueue(s, ids, 0);
    expect(s.queue.length).toBe(MAX_ORDERED_QUEUE);
    const late = ids[MAX_ORDERED_QUEUE]!;
    expect(askTurn(s, late, 1)).toMatchObject({ ok: false, code: ORDER_DEFERRAL_CODE });
    expect(s.queue.includes(late)).toBe(false);
    finish(s, 'd0', 2);
    expect(askTurn(s, late, 3).ok).toBe(false);
    expect(s.queue[s.queue.length - 1]).toBe(late);
  });

  it('R-RH-DEFER: ordering switched off wakes every waiter and empties the queue', () => {
    const s = emptyOrder();
    enqueue(s, ['d1', 'd2', 'd3'], 0);
    expect(clearOrder(s)).toEqual(['d2', 'd3']);
    expect(s.queue).toEqual([]);
  });
});

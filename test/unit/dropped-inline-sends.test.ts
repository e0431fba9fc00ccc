// Issue 16, R-CRASH: the outcome of an inline send whose run the worker's cache dropped while
// it ran is kept for the attempt that repeats it (src/activities/dropped-inline-sends.ts).
import { describe, expect, it } from 'vitest';
import { DroppedInlineSends, inlineSendKey } from '../../src/activities/dropped-inline-sends.js';
import type { SendResult } from '../../src/shared/delivery-types.js';

const outcome = (httpStatus: number): SendResult => ({
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:01.000Z',
  latencyMs: 1000,
  httpStatus,
});

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('issue 16: inline sends dropped with their run', () => {
  it('R-CRASH: a send cancelled while it runs is kept, and its outcome is taken once', async () => {
    const kept = new DroppedInlineSends();
    const cancel = new AbortController();
    const send = deferred<SendResult>();
    kept.watch(inlineSendKey('dlv_1', 1), send.promise, cancel.signal);
    cancel.abort();
    send.resolve(outcome(200));
    expect(kept.take(inlineSendKey('dlv_1', 2))).toBeUndefined();
    await expect(kept.take(inlineSendKey('dlv_1', 1))).resolves.toMatchObject({ httpStatus: 200 });
    expect(kept.take(inlineSendKey('dlv_1', 1))).toBeUndefined();
  });

  it('a send that ends before any cancellation is not kept: its outcome reached the workflow', async () => {
    const kept = new DroppedInlineSends();
    const cancel = new AbortController();
    const send = Promise.resolve(outcome(200));
    kept.watch(inlineSendKey('dlv_2', 1), send, cancel.signal);
    await send;
    cancel.abort();
    expect(kept.size).toBe(0);
    expect(kept.take(inlineSendKey('dlv_2', 1))).toBeUndefined();
  });

  it('a send still running when taken is waited for; one that threw hands its error to the taker, never unhandled', async () => {
    const kept = new DroppedInlineSends();
    const cancel = new AbortController();
    cancel.abort();
    const send = deferred<SendResult>();
    kept.watch('dlv_3#1', send.promise, cancel.signal);
    const taken = kept.take('dlv_3#1');
    send.reject(new Error('boom'));
    await expect(taken).rejects.toThrow('boom');
  });

  it('kept for keepMs, and at most max of them (the oldest go first)', async () => {
    let now = 0;
    const kept = new DroppedInlineSends(1000, 2, () => now);
    const cancel = new AbortController();
    cancel.abort();
    for (const id of ['a', 'b', 'c']) kept.watch(id, Promise.resolve(outcome(200)), cancel.signal);
    expect(kept.size).toBe(2);
    expect(kept.take('a')).toBeUndefined();
    now = 1000;
    expect(kept.take('b')).toBeUndefined();
    expect(kept.size).toBe(0);
  });
});

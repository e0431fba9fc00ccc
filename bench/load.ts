import { setTimeout as delay } from 'node:timers/promises';

/** Runs `fn` over `count` items with at most `concurrency` in flight (a closed loop). */
export async function closedLoop(count: number, concurrency: number, fn: (i: number) => Promise<unknown>) {
  let next = 0;
  const errors: unknown[] = [];
  const lane = async () => {
    while (next < count) {
      const i = next++;
      try {
        await fn(i);
      } catch (err) {
        errors.push(err);
        if (errors.length > 20) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  if (errors.length) throw new Error(`${errors.length} requests failed; first: ${String(errors[0])}`);
}

/**
 * Fires `fn` at a fixed rate regardless of how long each call takes (an open loop), so a
 * slow server shows up as latency instead of silently lowering the offered load.
 */
export async function openLoop(ratePerSecond: number, seconds: number, fn: (i: number) => Promise<unknown>) {
  const total = Math.round(ratePerSecond * seconds);
  const start = performance.now();
  const inFlight: Promise<unknown>[] = [];
  const errors: unknown[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / ratePerSecond;
    const wait = due - performance.now();
    if (wait > 1) await delay(wait);
    inFlight.push(fn(i).catch((err) => errors.push(err)));
  }
  await Promise.all(inFlight);
  if (errors.length)
    throw new Error(`${errors.length} of ${total} requests failed; first: ${String(errors[0])}`);
}

import { errorFields, log } from '../observability/log.js';

/**
 * Herald's one way to do many Temporal calls at once: at most `n` in flight, so a bulk
 * request cannot open thousands of RPCs, and the results keep the items' order.
 */
export async function boundedMap<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/**
 * A bulk operation's "try each, report each": every item is tried (one failing never stops
 * the rest), each failure comes back with its code. `codeOf` names an expected refusal; any
 * other error is logged and reported as `internal_error`, never lost and never thrown.
 */
export async function tryEach<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T) => Promise<R>,
  opts: { codeOf: (err: unknown) => string | undefined; idOf: (item: T) => string; what: string },
): Promise<{ done: R[]; failed: Array<{ id: string; code: string }> }> {
  const outcomes = await boundedMap(items, n, async (item) => {
    try {
      return { ok: true as const, r: await fn(item) };
    } catch (err) {
      const code = opts.codeOf(err);
      if (code === undefined) log.error(`${opts.what} failed`, { id: opts.idOf(item), ...errorFields(err) });
      return { ok: false as const, id: opts.idOf(item), code: code ?? 'internal_error' };
    }
  });
  const done: R[] = [];
  const failed: Array<{ id: string; code: string }> = [];
  for (const o of outcomes) {
    if (o.ok) done.push(o.r);
    else failed.push({ id: o.id, code: o.code });
  }
  return { done, failed };
}

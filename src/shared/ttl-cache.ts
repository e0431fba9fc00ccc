/**
 * Herald's one read-through cache over Temporal reads. Concurrent misses share one load; a
 * failed load is never remembered (an unreachable Temporal is a 503 next time too, never a
 * cached answer); entries are bounded in number, oldest dropped first.
 *
 * With `maxStaleMs` above `ttlMs`, an expired value keeps answering while one refresh runs
 * in the background, up to `maxStaleMs`: under load the workflows behind these reads answer
 * slowly (queries wait behind workflow tasks), and callers must not queue behind them.
 */
export interface TtlCacheOptions {
  ttlMs: number;
  maxStaleMs?: number;
  /** Entries kept at most. */
  max?: number;
  now?: () => number;
}

interface Entry<T> {
  at: number;
  value: Promise<T>;
  settled?: { v: T };
  refreshing?: boolean;
}

export class TtlCache<T> {
  private readonly m = new Map<string, Entry<T>>();
  private readonly ttlMs: number;
  private readonly maxStaleMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(o: TtlCacheOptions) {
    this.ttlMs = o.ttlMs;
    this.maxStaleMs = Math.max(o.ttlMs, o.maxStaleMs ?? o.ttlMs);
    this.max = o.max ?? 10_000;
    this.now = o.now ?? Date.now;
  }

  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.m.get(key);
    const age = hit ? this.now() - hit.at : Infinity;
    if (hit && age < this.ttlMs) return hit.value;
    if (hit?.settled && age < this.maxStaleMs) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        load().then(
          (v) => {
            if (this.m.get(key) === hit) this.store(key, Promise.resolve(v), { v });
          },
          () => {
            hit.refreshing = false;
          },
        );
      }
      return Promise.resolve(hit.settled.v);
    }
    return this.set(key, load());
  }

  /** Puts a read already on its way (a fresh read the caller forced); it serves later gets. */
  set(key: string, value: Promise<T>): Promise<T> {
    return this.store(key, value);
  }

  delete(key: string): void {
    this.m.delete(key);
  }

  /** Drops the entry only if it still holds this value (a newer read may have replaced it). */
  deleteIf(key: string, value: Promise<T>): void {
    if (this.m.get(key)?.value === value) this.m.delete(key);
  }

  private store(key: string, value: Promise<T>, settled?: { v: T }): Promise<T> {
    const entry: Entry<T> = { at: this.now(), value, settled };
    this.m.delete(key);
    this.m.set(key, entry);
    if (!settled)
      value.then(
        (v) => (entry.settled = { v }),
        () => this.m.get(key) === entry && this.m.delete(key),
      );
    while (this.m.size > this.max) this.m.delete(this.m.keys().next().value as string);
    return value;
  }
}

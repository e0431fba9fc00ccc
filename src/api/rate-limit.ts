/**
 * Token buckets, one per key (a tenant): each holds up to `burst` tokens and refills at
 * `ratePerSecond`; a request takes one token or is refused with the time until the next
 * one. Pure: the clock comes in, so tests need no timers.
 *
 * The buckets live in the process that checks them: with several API processes a tenant
 * gets the rate once per process.
 */
export interface TokenBucketOptions {
  ratePerSecond: number;
  burst: number;
  /** Buckets kept at most; beyond it the least recently used go (a lost bucket restarts full). */
  maxKeys?: number;
}

export type TakeResult = { allowed: true; remaining: number } | { allowed: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxKeys: number;

  constructor(private readonly options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
    if (!(options.burst >= 1)) throw new RangeError('burst must be at least 1');
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  take(key: string, now: number): TakeResult {
    const { ratePerSecond, burst } = this.options;
    const prev = this.buckets.get(key);
    // A clock that steps back refills nothing rather than draining the bucket.
    const elapsedMs = prev ? Math.max(0, now - prev.at) : 0;
    const tokens = prev ? Math.min(burst, prev.tokens + (elapsedMs * ratePerSecond) / 1000) : burst;
    // Re-inserted on every take, so the Map's order is least recently used first.
    this.buckets.delete(key);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: now });
      this.evict();
      return { allowed: true, remaining: Math.floor(tokens - 1) };
    }
    this.buckets.set(key, { tokens, at: now });
    return { allowed: false, retryAfterMs: Math.ceil(((1 - tokens) * 1000) / ratePerSecond) };
  }

  get size(): number {
    return this.buckets.size;
  }

  private evict() {
    while (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
  }
}

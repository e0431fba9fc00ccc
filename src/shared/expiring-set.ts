/**
 * Keys remembered for a short time, in insertion order, bounded in number: a made-up
 * credential (API key, ingest id) costs one Temporal query per TTL, not one per request,
 * and a flood of them costs bounded memory.
 */
export class ExpiringSet {
  private readonly m = new Map<string, number>();
  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}
  has(key: string): boolean {
    const at = this.m.get(key);
    if (at === undefined) return false;
    if (this.now() - at < this.ttlMs) return true;
    this.m.delete(key);
    return false;
  }
  add(key: string): void {
    this.m.delete(key);
    this.m.set(key, this.now());
    while (this.m.size > this.max) this.m.delete(this.m.keys().next().value as string);
  }
  delete(key: string): void {
    this.m.delete(key);
  }
}

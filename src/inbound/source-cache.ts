import type { Client } from '@temporalio/client';
import { sourceSnapshotQuery } from '../shared/source-messages.js';
import type { SourceSnapshot } from '../shared/source-types.js';
import { SOURCE_ID } from './forwards.js';

/**
 * The ingest route's view of sources: one query per source per TTL (about a second), so
 * a sender's burst costs Temporal one query, not one per request. Unknown ids are cached
 * too (as undefined), so guessing ids cannot turn into a query flood. A change made
 * through the API drops the entry at once in this process.
 */
export class SourceCache {
  private readonly m = new Map<string, { at: number; v: Promise<SourceSnapshot | undefined> }>();

  constructor(
    private readonly client: Client,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  get(sourceId: string): Promise<SourceSnapshot | undefined> {
    if (!SOURCE_ID.test(sourceId)) return Promise.resolve(undefined);
    const hit = this.m.get(sourceId);
    const now = Date.now();
    if (hit && now - hit.at < this.ttlMs) return hit.v;
    const v = this.load(sourceId);
    this.m.set(sourceId, { at: now, v });
    // A failed read (Temporal unreachable) is not remembered.
    v.catch(() => this.m.delete(sourceId));
    if (this.m.size > this.maxEntries) this.m.delete(this.m.keys().next().value as string);
    return v;
  }

  drop(sourceId: string) {
    this.m.delete(sourceId);
  }

  private async load(sourceId: string): Promise<SourceSnapshot | undefined> {
    try {
      const s = await this.client.workflow.getHandle(sourceId).query(sourceSnapshotQuery);
      return s.deleted ? undefined : s;
    } catch (err) {
      if ((err as { name?: string }).name === 'WorkflowNotFoundError') return undefined;
      throw err;
    }
  }
}

import type { Client } from '@temporalio/client';
import type { SnapshotStamp } from '../shared/snapshot-memo.js';
import { stillCurrent } from './describe-entity.js';

/**
 * Issue 16: the last answer each entity workflow (an endpoint, a tenant) gave a read query,
 * kept so a reader can check it by describe instead of querying again. A describe is
 * neither a billable action nor a task for the entity's worker; the query it saves is both.
 * The answer stands while the workflow's memo carries the revision it was stamped with, and
 * for `trustMs` at most after the query that gave it.
 */
export class StampedAnswers<T extends { stamp?: SnapshotStamp }> {
  private readonly known = new Map<string, { value: T; queriedAt: number }>();

  constructor(
    private readonly client: Client,
    private readonly now: () => number = Date.now,
    private readonly trustMs = 30_000,
    private readonly max = 10_000,
  ) {}

  /**
   * The held answer when a describe shows the workflow has not changed since; undefined
   * otherwise, and when the describe fails (the caller's query then decides, with its own
   * errors).
   */
  async unchanged(id: string): Promise<T | undefined> {
    const held = this.known.get(id);
    if (!held?.value.stamp || this.now() - held.queriedAt >= this.trustMs) return undefined;
    const current = await stillCurrent(this.client, id, held.value.stamp, this.now()).catch(() => false);
    // A query answered during the describe holds a newer answer: that one is the reader's.
    return current && this.known.get(id) === held ? held.value : undefined;
  }

  /** Sends the query and keeps its answer, unless an answer to a later query is already held. */
  async query(id: string, query: () => Promise<T>): Promise<T> {
    const queriedAt = this.now();
    const value = await query();
    const had = this.known.get(id);
    if (!had || had.queriedAt <= queriedAt) {
      this.known.delete(id);
      this.known.set(id, { value, queriedAt });
      while (this.known.size > this.max) this.known.delete(this.known.keys().next().value as string);
    }
    return value;
  }

  /** The held answer if still current, else the query's. */
  async read(id: string, query: () => Promise<T>): Promise<T> {
    return (await this.unchanged(id)) ?? this.query(id, query);
  }

  /** The answer last held, whatever its age, and when its query was sent. */
  last(id: string): { value: T; queriedAt: number } | undefined {
    return this.known.get(id);
  }

  forget(id: string): void {
    this.known.delete(id);
  }
}

import type { Client } from '@temporalio/client';
import { endpointSnapshotQuery } from '../shared/endpoint-messages.js';
import type { EndpointSnapshot } from '../shared/endpoint-types.js';

/**
 * Deliveries read their endpoint through this cache, not with a query per attempt: a
 * busy endpoint sees at most one query per worker per TTL, and concurrent misses share
 * one in-flight query.
 */
export class EndpointSnapshotCache {
  private readonly entries = new Map<string, { at: number; value: Promise<EndpointSnapshot> }>();

  constructor(
    private readonly client: Client,
    private readonly ttlMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  get(endpointId: string): Promise<EndpointSnapshot> {
    const hit = this.entries.get(endpointId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.client.workflow.getHandle(endpointId).query(endpointSnapshotQuery);
    this.entries.set(endpointId, { at: this.now(), value });
    value.catch(() => this.entries.delete(endpointId));
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }

  /** After this worker changed the endpoint itself, read it fresh. */
  invalidate(endpointId: string): void {
    this.entries.delete(endpointId);
  }
}

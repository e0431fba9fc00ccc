import type { Client } from '@temporalio/client';
import type { HealthState } from '../health/types.js';
import { endpointSnapshotQuery } from '../shared/endpoint-messages.js';
import type { EndpointSnapshot } from '../shared/endpoint-types.js';

/**
 * Deliveries read their endpoint through this cache, not with a query per attempt: a
 * busy endpoint sees at most one query per worker per TTL, and concurrent misses share
 * one in-flight query. Judging an outcome (readAfter) adds at most one query in flight
 * and one queued per endpoint per worker, shared by every delivery finishing meanwhile.
 */
export class EndpointSnapshotCache {
  private readonly entries = new Map<string, { at: number; value: Promise<EndpointSnapshot> }>();
  private readonly after = new Map<string, { inFlight?: Promise<EndpointSnapshot>; queued?: Promise<EndpointSnapshot> }>();

  constructor(
    private readonly client: Client,
    private readonly ttlMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  get(endpointId: string): Promise<EndpointSnapshot> {
    const hit = this.entries.get(endpointId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    return this.query(endpointId);
  }

  /**
   * A snapshot read by a query sent after this call: what the endpoint knew once an
   * outcome had happened (issue 14.4). A cached read, or one already on its way, may
   * predate a failure another delivery reported in the meantime, and judging a success
   * on it would leave that failure's streak standing. Callers arriving while a query is
   * out share the next one, so a burst of outcomes costs two queries, not one each.
   */
  readAfter(endpointId: string): Promise<EndpointSnapshot> {
    let slot = this.after.get(endpointId);
    if (!slot) this.after.set(endpointId, (slot = {}));
    const s = slot;
    // A queued query has not been sent yet, so it is sent after this call: share it.
    if (s.queued) return s.queued;
    if (!s.inFlight) return this.sendAfter(endpointId, s);
    const queued = s.inFlight
      .catch(() => undefined)
      .then(() => {
        s.queued = undefined;
        return this.sendAfter(endpointId, s);
      });
    s.queued = queued;
    return queued;
  }

  /** After this worker changed the endpoint itself, read it fresh. */
  invalidate(endpointId: string): void {
    this.entries.delete(endpointId);
  }

  private sendAfter(
    endpointId: string,
    slot: { inFlight?: Promise<EndpointSnapshot>; queued?: Promise<EndpointSnapshot> },
  ): Promise<EndpointSnapshot> {
    // The freshest read also serves the next deliveries' `get`.
    const value = this.query(endpointId);
    slot.inFlight = value;
    const settle = () => {
      if (slot.inFlight === value) slot.inFlight = undefined;
      if (!slot.inFlight && !slot.queued && this.after.get(endpointId) === slot) this.after.delete(endpointId);
    };
    value.then(settle, settle);
    return value;
  }

  private query(endpointId: string): Promise<EndpointSnapshot> {
    const value = this.client.workflow.getHandle(endpointId).query(endpointSnapshotQuery);
    const entry = { at: this.now(), value };
    this.entries.set(endpointId, entry);
    value.catch(() => {
      if (this.entries.get(endpointId) === entry) this.entries.delete(endpointId);
    });
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }
}

/**
 * The endpoint's health to judge an outcome on (shouldReport): read after the outcome.
 * When the endpoint cannot be read, the state seen before the send goes back marked
 * `unconfirmed`, so the outcome is reported rather than lost.
 */
export async function healthAfterOutcome(
  cache: EndpointSnapshotCache,
  endpointId: string,
  before: HealthState,
): Promise<HealthState> {
  try {
    return (await cache.readAfter(endpointId)).health;
  } catch {
    return { ...before, unconfirmed: true };
  }
}

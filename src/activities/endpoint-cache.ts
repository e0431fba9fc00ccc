import type { Client } from '@temporalio/client';
import type { HealthState } from '../health/types.js';
import { endpointSnapshotQuery } from '../shared/endpoint-messages.js';
import type { EndpointSnapshot } from '../shared/endpoint-types.js';
import { healthFromDescription } from '../shared/health-memo.js';
import { describeEntity } from '../store/describe-entity.js';
import { StampedAnswers } from '../store/stamped-answers.js';
import { TtlCache } from '../shared/ttl-cache.js';

/**
 * Deliveries read their endpoint through this cache, not with a query per attempt: a
 * busy endpoint sees at most one query per worker per TTL, and concurrent misses share
 * one in-flight query. Judging an outcome (readAfter) adds at most one read per
 * `afterSpacingMs` per endpoint per worker, shared by every delivery finishing meanwhile:
 * a describe of the endpoint's memo, a query only when the memo may be behind.
 *
 * An expired entry is checked the same way before it is queried again (issue 16): when the
 * memo's snapshot revision is the one the held answer was stamped with, the answer stands.
 * The query goes out when something changed, when the memo cannot tell, and at least once
 * per `trustMs` regardless.
 */
export class EndpointSnapshotCache {
  private readonly entries: TtlCache<EndpointSnapshot>;
  private readonly after = new Map<string, AfterSlot>();
  private readonly known: StampedAnswers<EndpointSnapshot>;

  constructor(
    private readonly client: Client,
    ttlMs = 1000,
    private readonly now: () => number = Date.now,
    // A query is a round trip through matching and a billable action on Temporal Cloud:
    // under a burst, back-to-back after-reads would cost one per query latency (a few
    // ms), so outcomes wait up to this long to share one. Only the workflow's bookkeeping
    // waits: the receiver already has its request.
    private readonly afterSpacingMs = 100,
    trustMs = 30_000,
    maxKnown = 10_000,
  ) {
    this.entries = new TtlCache({ ttlMs, now });
    this.known = new StampedAnswers(client, now, trustMs, maxKnown);
  }

  get(endpointId: string): Promise<EndpointSnapshot> {
    return this.entries.get(endpointId, () => this.revalidate(endpointId));
  }

  /**
   * The health as read by a request sent after this call: what the endpoint knew once an
   * outcome had happened (issue 14.4). A cached read, or one already on its way, may
   * predate a failure another delivery reported in the meantime, and judging a success
   * on it would leave that failure's streak standing. Callers arriving while a query is
   * out, or within the spacing of the last one, share the next one.
   */
  readAfter(endpointId: string): Promise<HealthState> {
    let slot = this.after.get(endpointId);
    if (!slot) this.after.set(endpointId, (slot = { lastSentAt: -Infinity }));
    const s = slot;
    // A queued query has not been sent yet, so it is sent after this call: share it.
    if (s.queued) return s.queued;
    const wait = s.lastSentAt + this.afterSpacingMs - this.now();
    if (!s.inFlight && wait <= 0) return this.sendAfter(endpointId, s);
    const queued: Promise<HealthState> = Promise.all([
      s.inFlight?.catch(() => undefined),
      wait > 0 ? new Promise((r) => setTimeout(r, wait)) : undefined,
    ]).then(() => {
      s.queued = undefined;
      return this.sendAfter(endpointId, s);
    });
    s.queued = queued;
    return queued;
  }

  /** After this worker changed the endpoint itself, read it fresh. */
  invalidate(endpointId: string): void {
    this.entries.delete(endpointId);
    this.known.forget(endpointId);
  }

  private sendAfter(endpointId: string, slot: AfterSlot): Promise<HealthState> {
    const value = this.healthNow(endpointId);
    slot.inFlight = value;
    slot.lastSentAt = this.now();
    const settle = () => {
      if (slot.inFlight === value) slot.inFlight = undefined;
      // Kept while its spacing runs, so a burst cannot restart it by emptying the map.
      const idle = () => !slot.inFlight && !slot.queued && this.after.get(endpointId) === slot;
      if (idle()) setTimeout(() => idle() && this.after.delete(endpointId), this.afterSpacingMs).unref?.();
    };
    value.then(settle, settle);
    return value;
  }

  /**
   * Issue 16: the health from the endpoint's memo, read by describe (no query, no worker
   * task, no billable action); a query when the memo cannot tell (healthFromDescription).
   * A query's answer, the freshest read, also serves the next deliveries' `get`.
   */
  private async healthNow(endpointId: string): Promise<HealthState> {
    const health = healthFromDescription(await describeEntity(this.client, endpointId));
    if (health) return health;
    return (await this.query(endpointId)).health;
  }

  private query(endpointId: string): Promise<EndpointSnapshot> {
    return this.entries.set(endpointId, this.known.query(endpointId, () => this.querySnapshot(endpointId)));
  }

  /** The answer held, when a describe shows the endpoint has not changed since; else a query. */
  private revalidate(endpointId: string): Promise<EndpointSnapshot> {
    return this.known.read(endpointId, () => this.querySnapshot(endpointId));
  }

  private querySnapshot(endpointId: string): Promise<EndpointSnapshot> {
    return this.client.workflow.getHandle(endpointId).query(endpointSnapshotQuery);
  }
}

interface AfterSlot {
  lastSentAt: number;
  inFlight?: Promise<HealthState>;
  queued?: Promise<HealthState>;
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
    return await cache.readAfter(endpointId);
  } catch {
    return { ...before, unconfirmed: true };
  }
}

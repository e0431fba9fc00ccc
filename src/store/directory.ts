import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { endpointViewQuery } from '../shared/endpoint-messages.js';
import type { EndpointView } from '../shared/endpoint-types.js';
import { ENDPOINT_WORKFLOW } from '../shared/names.js';
import { SA_TENANT } from '../shared/search-attributes.js';
import { tenantKeysQuery, tenantViewQuery } from '../shared/tenant-messages.js';
import type { TenantKeys, TenantView } from '../shared/tenant-types.js';
import { ExpiringSet } from '../shared/expiring-set.js';
import { TtlCache } from '../shared/ttl-cache.js';
import { ENDPOINT_ID } from '../shared/ids.js';
import { withoutStamp } from '../shared/snapshot-memo.js';
import { StampedAnswers } from './stamped-answers.js';
import { unlessNotFound } from './not-found.js';
import { RUNNING, and, eq, ofType } from './visibility.js';
import { RecentlyCreated } from './recently-created.js';

/** How long a tenant id Temporal does not know is answered 401 without asking again. */
export const UNKNOWN_TENANT_TTL_MS = 10_000;
/** Unknown tenant ids remembered at most (oldest dropped first), whatever a client makes up. */
export const UNKNOWN_TENANT_MAX = 10_000;
/**
 * Issue 19: how old an endpoint's last answered view may be and still stand in for a query
 * that fails for a passing reason (its worker was killed or is starved). Each delivery reads
 * the endpoint afresh before it sends (paused, disabled, its URL), so only the fan-out's
 * subscription filter can be this stale; without it, every publish fails until the worker is
 * back.
 */
export const ENDPOINT_VIEW_FALLBACK_MS = 5 * 60_000;
/** Endpoint views remembered for that, at most (oldest dropped first). */
export const ENDPOINT_VIEW_FALLBACK_MAX = 50_000;
/**
 * Issue 16: how long a view may stand on describes showing its endpoint unchanged; past
 * this it is queried again whatever the memo says.
 */
export const ENDPOINT_VIEW_TRUST_MS = 30_000;

/**
 * The API's read side over Temporal: entity workflows are queried, lists come from
 * visibility. Short caches keep a burst of publishes from querying every endpoint each time.
 */
const liveEndpointsQuery = (tenantId: string) =>
  and(ofType(ENDPOINT_WORKFLOW), eq(SA_TENANT, tenantId), RUNNING);

export class Directory {
  // A revoked key or a changed endpoint shows within the TTL, or within the time one
  // refresh takes when the workflows behind them are busy (at most the stale limit).
  private readonly keys: TtlCache<TenantKeys>;
  /** Issue 16: an expired entry is checked by describe against the tenant's memo first. */
  private readonly heldKeys: StampedAnswers<TenantKeys>;
  private readonly endpointLists = new TtlCache<EndpointView[]>({ ttlMs: 1000, maxStaleMs: 30_000 });
  /**
   * Issue 13.6: tenant ids with no tenant workflow. API keys carry their tenant id, so a
   * made-up key for a made-up tenant would otherwise cost a query per request. Only "no
   * such workflow" lands here: a Temporal that does not answer is an error (503), never
   * an unknown tenant. Tenant ids are 96 random bits, so no tenant created later can have
   * an id someone made up before; the admin route also clears the id it creates.
   */
  private readonly unknownTenants = new ExpiringSet(UNKNOWN_TENANT_TTL_MS, UNKNOWN_TENANT_MAX);

  /** Endpoints this process created in the last minute: a publish right after must reach them. */
  private readonly created = new RecentlyCreated();
  /** The last view each endpoint answered, and when (see ENDPOINT_VIEW_FALLBACK_MS). */
  private readonly lastViews: StampedAnswers<EndpointView>;

  constructor(
    readonly client: Client,
    private readonly now: () => number = Date.now,
  ) {
    this.lastViews = new StampedAnswers(client, now, ENDPOINT_VIEW_TRUST_MS, ENDPOINT_VIEW_FALLBACK_MAX);
    this.keys = new TtlCache<TenantKeys>({ ttlMs: 2000, maxStaleMs: 30_000, now });
    this.heldKeys = new StampedAnswers(client, now);
  }

  private fallback(endpointId: string): EndpointView | undefined {
    const last = this.lastViews.last(endpointId);
    return last && this.now() - last.queriedAt <= ENDPOINT_VIEW_FALLBACK_MS ? last.value : undefined;
  }

  rememberCreated(tenantId: string, endpointId: string) {
    this.created.remember(tenantId, endpointId);
    this.endpointLists.delete(tenantId);
  }

  /**
   * The tenant's active keys; none for a tenant that does not exist. Rejects when Temporal
   * cannot tell (unreachable, timed out): the caller must not take that for "no keys".
   */
  async tenantKeys(tenantId: string): Promise<Array<{ keyId: string; hash: string }>> {
    if (this.unknownTenants.has(tenantId)) return [];
    try {
      const held = await this.keys.get(tenantId, () =>
        this.heldKeys.read(tenantId, async () => {
          const answer = await this.client.workflow.getHandle(tenantId).query(tenantKeysQuery);
          return Array.isArray(answer) ? { keys: answer } : answer;
        }),
      );
      return held.keys;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      this.unknownTenants.add(tenantId);
      return [];
    }
  }

  /** After a key is added or revoked: the next request reads the tenant's keys afresh. */
  forgetTenantKeys(tenantId: string) {
    this.keys.delete(tenantId);
    this.heldKeys.forget(tenantId);
    this.unknownTenants.delete(tenantId);
  }

  /** The tenant; undefined when it does not exist. A Temporal that cannot tell throws (a 503). */
  async tenant(tenantId: string): Promise<TenantView | undefined> {
    const v = await unlessNotFound(this.client.workflow.getHandle(tenantId).query(tenantViewQuery));
    return v && withoutStamp(v);
  }

  /**
   * The endpoint, if it exists and belongs to this tenant; otherwise undefined (a 404).
   * A Temporal that cannot tell throws (a 503), never a 404.
   */
  async endpoint(tenantId: string, endpointId: string): Promise<EndpointView | undefined> {
    if (!ENDPOINT_ID.test(endpointId)) return undefined;
    const v = await unlessNotFound(this.client.workflow.getHandle(endpointId).query(endpointViewQuery));
    return v && v.tenantId === tenantId && !v.deleted ? withoutStamp(v) : undefined;
  }

  /** Every live endpoint of the tenant, each read from its workflow. */
  endpoints(tenantId: string, fresh = false): Promise<EndpointView[]> {
    if (fresh) this.endpointLists.delete(tenantId);
    return this.endpointLists.get(tenantId, async () => {
      const ids: string[] = [];
      const query = liveEndpointsQuery(tenantId);
      for await (const wf of this.client.workflow.list({ query })) ids.push(wf.workflowId);
      for (const id of this.created.ids(tenantId)) if (!ids.includes(id)) ids.push(id);
      // Unlike a single lookup, a list must not drop an endpoint whose query failed for a
      // passing reason (a busy worker): publishing would silently skip it. Only an endpoint
      // that is gone is left out; one that answered recently stands on its last answer;
      // anything else fails the read, and the publish with it.
      const views = await Promise.all(
        ids.map(async (id) => {
          const held = await this.lastViews.unchanged(id);
          if (held) return held.tenantId === tenantId && !held.deleted ? withoutStamp(held) : undefined;
          // A just-created endpoint cannot answer until its first workflow task has run;
          // give it a few seconds before failing the publish.
          for (let wait = 250; ; wait *= 2) {
            try {
              const v = await this.lastViews.query(id, () =>
                this.client.workflow.getHandle(id).query(endpointViewQuery),
              );
              return v.tenantId === tenantId && !v.deleted ? withoutStamp(v) : undefined;
            } catch (err) {
              if (err instanceof WorkflowNotFoundError) {
                this.lastViews.forget(id);
                return undefined;
              }
              const last = this.fallback(id);
              if (last) return last.tenantId === tenantId && !last.deleted ? withoutStamp(last) : undefined;
              if (wait > 2000) throw err;
              await new Promise((r) => setTimeout(r, wait));
            }
          }
        }),
      );
      return views
        .filter((v): v is EndpointView => v !== undefined)
        .sort((a, b) => b.createdAt - a.createdAt);
    });
  }

  /**
   * Live endpoints of the tenant, counted by id from visibility plus the ones this process
   * just created (not yet visible); no endpoint is queried.
   */
  async endpointCount(tenantId: string): Promise<number> {
    const ids = new Set(this.created.ids(tenantId));
    const query = liveEndpointsQuery(tenantId);
    for await (const wf of this.client.workflow.list({ query })) ids.add(wf.workflowId);
    return ids.size;
  }

  forgetEndpoints(tenantId: string) {
    this.endpointLists.delete(tenantId);
  }
}

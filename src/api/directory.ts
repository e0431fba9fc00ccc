import type { Client } from '@temporalio/client';
import { endpointViewQuery } from '../shared/endpoint-messages.js';
import type { EndpointView } from '../shared/endpoint-types.js';
import { ENDPOINT_WORKFLOW } from '../shared/names.js';
import { tenantKeysQuery, tenantViewQuery } from '../shared/tenant-messages.js';
import type { TenantView } from '../shared/tenant-types.js';

/** Escapes a value for a visibility query string literal. */
export function lit(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

class TtlCache<T> {
  private readonly m = new Map<string, { at: number; v: Promise<T> }>();
  constructor(private readonly ttlMs: number) {}
  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.m.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.v;
    const v = load();
    this.m.set(key, { at: Date.now(), v });
    v.catch(() => this.m.delete(key));
    if (this.m.size > 10_000) this.m.delete(this.m.keys().next().value as string);
    return v;
  }
  drop(key: string) {
    this.m.delete(key);
  }
}

/**
 * The API's read side over Temporal: entity workflows are queried, lists come from
 * visibility. Short caches keep a burst of publishes from querying every endpoint each time.
 */
export class Directory {
  private readonly keys = new TtlCache<Array<{ keyId: string; hash: string }>>(2000);
  private readonly endpointLists = new TtlCache<EndpointView[]>(1000);

  constructor(readonly client: Client) {}

  tenantKeys(tenantId: string) {
    return this.keys.get(tenantId, () => this.client.workflow.getHandle(tenantId).query(tenantKeysQuery));
  }

  forgetTenantKeys(tenantId: string) {
    this.keys.drop(tenantId);
  }

  async tenant(tenantId: string): Promise<TenantView | undefined> {
    try {
      return await this.client.workflow.getHandle(tenantId).query(tenantViewQuery);
    } catch {
      return undefined;
    }
  }

  /** The endpoint, if it exists and belongs to this tenant; otherwise undefined (a 404). */
  async endpoint(tenantId: string, endpointId: string): Promise<EndpointView | undefined> {
    if (!/^ep_[A-Za-z0-9]+$/.test(endpointId)) return undefined;
    try {
      const v = await this.client.workflow.getHandle(endpointId).query(endpointViewQuery);
      return v.tenantId === tenantId && !v.deleted ? v : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every live endpoint of the tenant, each read from its workflow. */
  endpoints(tenantId: string, fresh = false): Promise<EndpointView[]> {
    if (fresh) this.endpointLists.drop(tenantId);
    return this.endpointLists.get(tenantId, async () => {
      const ids: string[] = [];
      const query = `WorkflowType = ${lit(ENDPOINT_WORKFLOW)} AND HeraldTenant = ${lit(tenantId)} AND ExecutionStatus = 'Running'`;
      for await (const wf of this.client.workflow.list({ query })) ids.push(wf.workflowId);
      const views = await Promise.all(ids.map((id) => this.endpoint(tenantId, id)));
      return views
        .filter((v): v is EndpointView => v !== undefined)
        .sort((a, b) => b.createdAt - a.createdAt);
    });
  }

  forgetEndpoints(tenantId: string) {
    this.endpointLists.drop(tenantId);
  }
}

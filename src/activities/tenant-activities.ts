import { heartbeat } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { TtlCache } from '../shared/ttl-cache.js';
import { StampedAnswers } from '../store/stamped-answers.js';
import { pendingDeliveries } from '../store/visibility.js';
import { wakeSignal } from '../shared/messages.js';
import { tenantViewQuery } from '../shared/tenant-messages.js';
import type { TenantView } from '../shared/tenant-types.js';
import type { SendGate } from './index.js';

/** R-SMENGO-INACTIVE: a delivery for an inactive subscription waits this long, then looks again. */
export const INACTIVE_DEFERRAL_MS = 3_600_000;

/**
 * Tenant state read through a short cache, like endpoints. An expired entry is checked by
 * describe against the view's revision in the tenant's memo (issue 16), and queried only
 * when the tenant changed, when the memo cannot tell, and at least once per `trustMs`.
 */
export class TenantCache {
  private readonly entries: TtlCache<TenantView | undefined>;
  private readonly known: StampedAnswers<TenantView>;
  constructor(
    private readonly client: Client,
    ttlMs = 1000,
    now: () => number = Date.now,
    trustMs = 30_000,
    maxKnown = 10_000,
  ) {
    this.entries = new TtlCache({ ttlMs, now });
    this.known = new StampedAnswers(client, now, trustMs, maxKnown);
  }

  get(tenantId: string, fresh = false): Promise<TenantView | undefined> {
    if (fresh) {
      this.entries.delete(tenantId);
      this.known.forget(tenantId);
    }
    return this.entries.get(tenantId, () =>
      this.known
        .read(tenantId, () => this.client.workflow.getHandle(tenantId).query(tenantViewQuery))
        // Deliveries published straight through Temporal may name no tenant workflow.
        .catch(() => undefined),
    );
  }
}

/** Defers (never spends an attempt, never disables) while the tenant's subscription is inactive. */
export function subscriptionGate(cache: TenantCache): SendGate {
  return async (req) => {
    const tenant = await cache.get(req.tenantId, req.freshRead);
    if (tenant && !tenant.subscriptionActive)
      return { code: 'subscription_inactive', retryInMs: INACTIVE_DEFERRAL_MS };
    return undefined;
  };
}

export function createTenantActivities(deps: { client?: Client }) {
  return {
    /** Reactivation: every deferred delivery of the tenant tries again now, not within the hour. */
    async wakeTenantDeliveries(args: { tenantId: string }): Promise<number> {
      if (!deps.client) throw new Error('tenant activities need a Temporal client in the worker');
      const query = pendingDeliveries({ tenantId: args.tenantId });
      let n = 0;
      try {
        for await (const wf of deps.client.workflow.list({ query })) {
          await deps.client.workflow
            .getHandle(wf.workflowId)
            .signal(wakeSignal)
            .catch(() => undefined);
          if (++n % 100 === 0) heartbeat(n);
        }
      } catch (err) {
        // The time-skipping test server has no visibility; deliveries recheck within the hour.
        if ((err as { cause?: { code?: number } })?.cause?.code === 12) return -1;
        throw err;
      }
      return n;
    },
  };
}

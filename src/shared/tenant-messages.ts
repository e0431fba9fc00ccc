import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ReplayAdmission, ReplayKind, TenantKeys, TenantView } from './tenant-types.js';
import type { RateLimit, Verdict } from '../flow/limiter.js';

export const tenantViewQuery = defineQuery<TenantView>('tenantView');
/**
 * Active key hashes, for the API's authentication cache. A worker deployed before issue 16
 * answers the bare list, without a stamp.
 */
export const tenantKeysQuery = defineQuery<TenantKeys | TenantKeys['keys']>('tenantKeys');

export const addApiKeyUpdate = defineUpdate<TenantView, [{ keyId: string; hash: string }]>('addApiKey');
export const revokeApiKeyUpdate = defineUpdate<TenantView, [{ keyId: string }]>('revokeApiKey');
/** R-SMENGO-INACTIVE: reactivation releases deferred deliveries at once. */
export const setSubscriptionUpdate = defineUpdate<TenantView, [{ active: boolean }]>('setSubscription');
/**
 * Replay quotas (R-BIRD-REPLAY: 20 window replays per UTC day; R-DT-REPLAY: 30 replay
 * requests per minute), counted where they cannot be lost or double-spent.
 */
export const admitReplayUpdate = defineUpdate<ReplayAdmission, [{ kind: ReplayKind }]>('admitReplay');

/** Issue 17: the operator sets (or, with null, removes) the tenant's rate limit. */
export const setTenantRateLimitUpdate = defineUpdate<TenantView, [{ rateLimit: RateLimit | null }]>('setTenantRateLimit');
/** Issue 17: sends of a rate-limited tenant ask here, batched per worker like endpoint permits. */
export const acquireTenantPermitUpdate = defineUpdate<
  Verdict[],
  [{ requests: Array<{ deliveryId: string; leaseMs: number; leadMs?: number; holdMs?: number; earlyMs?: number }> }]
>('acquireTenantPermit');

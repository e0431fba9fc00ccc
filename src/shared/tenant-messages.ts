import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ApiKeyRecord, ReplayAdmission, ReplayKind, TenantView } from './tenant-types.js';

export const tenantViewQuery = defineQuery<TenantView>('tenantView');
/** Active key hashes, for the API's authentication cache. */
export const tenantKeysQuery = defineQuery<Array<Pick<ApiKeyRecord, 'keyId' | 'hash'>>>('tenantKeys');

export const addApiKeyUpdate = defineUpdate<TenantView, [{ keyId: string; hash: string }]>('addApiKey');
export const revokeApiKeyUpdate = defineUpdate<TenantView, [{ keyId: string }]>('revokeApiKey');
/** R-SMENGO-INACTIVE: reactivation releases deferred deliveries at once. */
export const setSubscriptionUpdate = defineUpdate<TenantView, [{ active: boolean }]>('setSubscription');
/**
 * Replay quotas (R-BIRD-REPLAY: 20 window replays per UTC day; R-DT-REPLAY: 30 replay
 * requests per minute), counted where they cannot be lost or double-spent.
 */
export const admitReplayUpdate = defineUpdate<ReplayAdmission, [{ kind: ReplayKind }]>('admitReplay');

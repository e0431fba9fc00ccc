import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  REPLAY_REQUESTS_PER_MINUTE,
  WINDOW_REPLAYS_PER_DAY,
  secondsUntilNextUtcDay,
  utcDay,
} from '../policy/replay-quota.js';
import { emptyFlow, forgetOld, takeToken } from '../flow/limiter.js';
import {
  acquireTenantPermitUpdate,
  addApiKeyUpdate,
  admitReplayUpdate,
  revokeApiKeyUpdate,
  setSubscriptionUpdate,
  setTenantRateLimitUpdate,
  tenantKeysQuery,
  tenantViewQuery,
} from '../shared/tenant-messages.js';
import type { TenantCarried, TenantInput, TenantView } from '../shared/tenant-types.js';
import { ReadRevision, SNAPSHOT_MEMO_KEY } from '../shared/snapshot-memo.js';

const { wakeTenantDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '1s', maximumInterval: '1 minute' },
});

const MAX_HISTORY_EVENTS = 5_000;

/** Issue 16's patch id: tenant workflows count the changes to their view in their memo. */
const TENANT_VIEW_MEMO_PATCH = 'tenant-view-memo';

/** A tenant: its API keys (as hashes), billing address, subscription and replay quotas. */
export async function tenantWorkflow(input: TenantInput): Promise<void> {
  const s: TenantCarried = input.carried ?? {
    subscriptionActive: true,
    apiKeys: [],
    billingEmail: input.billingEmail,
    name: input.name,
  };
  let wakePending = false;

  const view = (): TenantView => ({
    tenantId: input.tenantId,
    name: s.name,
    billingEmail: s.billingEmail,
    subscriptionActive: s.subscriptionActive,
    createdAt: input.createdAt,
    apiKeys: s.apiKeys.map(({ hash: _hash, ...meta }) => meta),
    ...(s.rateLimit ? { rateLimit: s.rateLimit } : {}),
  });
  // Issue 17: Temporal refuses updates past 2,000 per run; permits roll over well before.
  let permitsThisRun = 0;

  // Issue 16: workers read the tenant (its subscription, its rate limit) through a cache
  // that checks the held view by describe: every handler that changes the view ends here.
  const revision = new ReadRevision();
  const memoize = () => {
    if (revision.note(JSON.stringify(view()), workflowInfo().memo) && patched(TENANT_VIEW_MEMO_PATCH))
      upsertMemo({ [SNAPSHOT_MEMO_KEY]: revision.rev });
  };
  memoize();

  setHandler(tenantViewQuery, () => ({
    ...view(),
    ...revision.stamp(JSON.stringify(view()), workflowInfo().runId),
  }));
  setHandler(tenantKeysQuery, () => ({
    keys: s.apiKeys.filter((k) => k.revokedAt === undefined).map(({ keyId, hash }) => ({ keyId, hash })),
    ...revision.stamp(JSON.stringify(view()), workflowInfo().runId),
  }));
  setHandler(addApiKeyUpdate, ({ keyId, hash }) => {
    s.apiKeys.push({ keyId, hash, createdAt: Date.now() });
    memoize();
    return view();
  });
  setHandler(revokeApiKeyUpdate, ({ keyId }) => {
    for (const k of s.apiKeys) if (k.keyId === keyId && k.revokedAt === undefined) k.revokedAt = Date.now();
    memoize();
    return view();
  });
  setHandler(setSubscriptionUpdate, ({ active }) => {
    if (active && !s.subscriptionActive) wakePending = true;
    s.subscriptionActive = active;
    memoize();
    return view();
  });
  setHandler(setTenantRateLimitUpdate, ({ rateLimit }) => {
    if (rateLimit) s.rateLimit = rateLimit;
    else delete s.rateLimit;
    memoize();
    return view();
  });
  setHandler(acquireTenantPermitUpdate, ({ requests }) => {
    permitsThisRun++;
    const limit = s.rateLimit;
    if (!limit) return requests.map(() => ({ granted: true as const }));
    const flow = (s.flow ??= emptyFlow());
    forgetOld(flow, Date.now());
    return requests.map((r) => takeToken(flow, limit, r.deliveryId, Date.now(), r.leadMs, r));
  });
  setHandler(admitReplayUpdate, ({ kind }) => {
    const now = Date.now();
    const minute = Math.floor(now / 60_000);
    if (s.replayMinute?.minute !== minute) s.replayMinute = { minute, used: 0 };
    if (s.replayMinute.used >= REPLAY_REQUESTS_PER_MINUTE)
      return {
        allowed: false,
        code: 'replay_rate_limited',
        retryAfterSeconds: 60 - Math.floor((now % 60_000) / 1000),
      };
    if (kind === 'window') {
      const day = utcDay(now);
      if (s.replayDay?.day !== day) s.replayDay = { day, used: 0 };
      if (s.replayDay.used >= WINDOW_REPLAYS_PER_DAY)
        return {
          allowed: false,
          code: 'WebhookReplayQuotaExceeded',
          retryAfterSeconds: secondsUntilNextUtcDay(now),
        };
      s.replayDay.used++;
    }
    s.replayMinute.used++;
    return { allowed: true };
  });

  const mustRollOver = () =>
    workflowInfo().continueAsNewSuggested ||
    workflowInfo().historyLength > MAX_HISTORY_EVENTS ||
    permitsThisRun > 1_200;
  for (;;) {
    await condition(() => wakePending || mustRollOver());
    if (wakePending) {
      wakePending = false;
      await wakeTenantDeliveries({ tenantId: input.tenantId });
    }
    if (mustRollOver() && !wakePending) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof tenantWorkflow>({ ...input, carried: s });
    }
  }
}

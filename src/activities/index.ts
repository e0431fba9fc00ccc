import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { sendDecision } from '../health/engine.js';
import { successNeedsReadAfter } from '../health/reporting.js';
import { readSendResult } from '../policy/attempt-result.js';
import type { AttemptRequest, SendResult } from '../shared/delivery-types.js';
import { claimProbeUpdate } from '../shared/endpoint-messages.js';
import { EndpointSnapshotCache, healthAfterOutcome } from './endpoint-cache.js';
import { createEndpointActivities } from './endpoint-activities.js';
import type { FlowGate } from './flow-gate.js';
import { createHttpSender, type HttpSenderDeps } from './http-sender.js';
import { createReplayActivities } from './replay-activities.js';
import { TenantCache, createTenantActivities, subscriptionGate } from './tenant-activities.js';
import type { Notifier } from '../notify/notifier.js';
import { verificationGate } from '../shared/verification.js';
import { wakeSignal } from '../shared/messages.js';
import type { SendShare } from '../policy/flow-share.js';
import type { InlineSlots } from './inline-slots.js';
import { DroppedInlineSends, inlineSendKey } from './dropped-inline-sends.js';

/**
 * Decides, before anything is sent, whether this attempt must wait instead (for example
 * the tenant's subscription is inactive): a deferral spends no attempt.
 */
export type SendGate = (req: AttemptRequest) => Promise<{ code: string; retryInMs: number } | undefined>;

export interface ActivityDeps extends HttpSenderDeps {
  /** Needed for endpoint-bound deliveries and the endpoint workflow's activities. */
  client?: Client;
  gate?: SendGate;
  notifier?: Notifier;
  /** Where notices go when the tenant has no billing address on file. */
  billingEmail?: (tenantId: string) => Promise<string | undefined>;
  endpointCacheTtlMs?: number;
  /** Least time between two after-outcome reads of one endpoint (issue 14.4); see EndpointSnapshotCache. */
  endpointAfterReadSpacingMs?: number;
  /** Issue 17: the default share of this worker's send slots one endpoint may hold. */
  sendShare?: SendShare;
  /** Issue 17: rate limits and maxInFlight, asked of the endpoint only when its snapshot has them. */
  flowGate?: FlowGate;
  /** Issue 16: how many inline first attempts may run at once here (they hold workflow-task slots). */
  inlineSlots?: InlineSlots;
  /** Issue 16, R-CRASH: inline sends whose run the worker's cache dropped while they ran. */
  droppedInline?: DroppedInlineSends;
}

/** Activities are built from their dependencies so tests can hand in a clock, resolver or gate. */
export function createActivities(deps: ActivityDeps) {
  const send = createHttpSender(deps);
  const cache = deps.client ? new EndpointSnapshotCache(deps.client, deps.endpointCacheTtlMs, undefined, deps.endpointAfterReadSpacingMs) : undefined;
  // R-SMENGO-INACTIVE: endpoint-bound and ad-hoc deliveries belong to a tenant whose
  // subscription may pause them.
  const tenants = deps.client ? new TenantCache(deps.client, deps.endpointCacheTtlMs) : undefined;
  const tenantGate = tenants ? subscriptionGate(tenants) : undefined;
  // R-SMENGO-HEALTH: notices go to the tenant's billing address, else the endpoint creator.
  const billingEmail =
    deps.billingEmail ?? (tenants ? async (id: string) => (await tenants.get(id, true))?.billingEmail : undefined);
  const stamp = () => deps.now().toISOString();
  const notSentNow = () => ({ startedAt: stamp(), finishedAt: stamp(), latencyMs: 0, notSent: true }) as const;
  const share = deps.sendShare;
  const droppedInline = deps.droppedInline ?? new DroppedInlineSends();
  /** A slot of the endpoint freed here: the oldest delivery refused for it goes next (a wake, not a poll). */
  const wakeNextWaiter = (endpointId: string) => {
    const id = share?.nextWaiter(endpointId);
    if (id === undefined || !deps.client) return;
    // One that has ended meanwhile cannot take the slot: the next one may.
    deps.client.workflow.getHandle(id).signal(wakeSignal).catch(() => wakeNextWaiter(endpointId));
  };

  async function sendAttempt(req: AttemptRequest): Promise<SendResult> {
    const key = inlineSendKey(req.deliveryId, req.attempt);
    // R-CRASH: the inline send this attempt repeats went out from here, and the worker's
    // cache dropped its run before its outcome was recorded (its task timed out, or its
    // local activity did): that outcome, not a second request.
    const kept = droppedInline.take(key);
    if (kept) return keptOutcome(await kept);
    if (!req.inline) return sendOnce(req);
    // It may have been sent from elsewhere: the workflow logs a lost lease and repeats it.
    if (req.firstTaskRepeated) return { ...notSentNow(), inlineLost: true };
    // Issue 16: an inline first attempt holds a workflow-task slot while it runs; past this
    // worker's inline slots (or its endpoint's part of them), after a short wait for one
    // (inline-slots.ts), it goes out as the activity.
    const slot = deps.inlineSlots ? await deps.inlineSlots.enter(req.endpointId) : undefined;
    if (deps.inlineSlots && !slot) {
      // Its endpoint holding its whole share of the send slots here, the activity would only
      // be refused for it: the deferral is answered now, and the wake of a freed slot comes
      // as it would (a workflow task and an activity task fewer for each such delivery).
      if (share && !req.target && !req.drainTurn && share.waitIfFull(req.endpointId, req.deliveryId))
        return { ...notSentNow(), deferral: share.deferral(req.endpointId, req.deliveryId) };
      return { ...notSentNow(), inlineDeclined: true };
    }
    // Issue 17: the inline attempt holds its part of its endpoint's share from here, not only
    // once its reads are done, so a first attempt declined meanwhile sees the share as it
    // will be (and is deferred here rather than sent as an activity only to be refused).
    const hold = shareHold(req);
    if (share && !req.target && !hold.take(req.drainTurn === true)) {
      slot?.leave();
      return { ...notSentNow(), deferral: share.deferral(req.endpointId, req.deliveryId) };
    }
    try {
      const outcome = sendOnce(req, hold);
      const cancelled = currentCancellation();
      if (cancelled) droppedInline.watch(key, outcome, cancelled);
      return await outcome;
    } finally {
      slot?.leave();
    }
  }

  /** One send's slot of its endpoint's share: taken at most once, given back at most once. */
  function shareHold(req: AttemptRequest) {
    let holding = false;
    return {
      take: (always: boolean) =>
        holding || (holding = share?.tryEnter(req.endpointId, req.deliveryId, always) ?? false),
      release: () => {
        if (!holding || !share) return;
        holding = false;
        share.leave(req.endpointId);
        wakeNextWaiter(req.endpointId);
      },
    };
  }

  /** `hold`: the share slot an inline attempt already took, given back here whatever the outcome. */
  async function sendOnce(req: AttemptRequest, hold = shareHold(req)): Promise<SendResult> {
    try {
      return await decideAndSend(req, hold);
    } finally {
      // A send deferred or dropped after its inline attempt took the share slot gives it back.
      hold.release();
    }
  }

  async function decideAndSend(req: AttemptRequest, hold: ReturnType<typeof shareHold>): Promise<SendResult> {
    // Inbound forwards are left out: they run as forward workflows, which a reactivation
    // does not wake (wakeTenantDeliveries), so a deferral would hold them for the full hour.
    const deferral = (await deps.gate?.(req)) ?? (req.target?.forward ? undefined : await tenantGate?.(req));
    if (deferral) return { ...notSentNow(), deferral };
    if (req.target) return send({ ...req, target: req.target });

    if (!cache || !deps.client) throw new Error('endpoint-bound deliveries need a Temporal client in the worker');
    // A resume or a drain turn must not be refused by a stale read from before it.
    if (req.drainTurn || req.freshRead) cache.invalidate(req.endpointId);
    let snap = await cache.get(req.endpointId);
    if (snap.deleted)
      return { ...notSentNow(), drop: { code: 'endpoint_disabled', endAs: 'dead' } };
    // Issue 14.15: an unverified endpoint (verification `challenge`) is sent nothing, under
    // every preset: `failed`, no attempt (R-STATUS). While its first challenge is out the
    // delivery waits instead (a deferral, woken when the answer comes).
    let verified = verificationGate(snap.verification);
    if (verified.kind === 'drop') {
      // `failed` is final: judge it on a fresh read, not a cached one from before a /verify.
      cache.invalidate(req.endpointId);
      snap = await cache.get(req.endpointId);
      verified = verificationGate(snap.verification);
    }
    if (verified.kind !== 'send') {
      const notSent = { ...notSentNow(), health: snap.health };
      return verified.kind === 'drop'
        ? { ...notSent, drop: { code: verified.code, endAs: verified.endAs } }
        : { ...notSent, deferral: { code: verified.code, retryInMs: verified.retryInMs } };
    }
    const opts = { createdAt: Date.parse(req.createdAt), deliveryId: req.deliveryId, drainTurn: req.drainTurn };
    const decideAt = () => Math.max(deps.now().getTime(), req.scheduledAt);
    let decision = sendDecision(snap.preset, snap.health, decideAt(), opts);
    const probe = decision.kind === 'defer' && decision.claimProbe;
    if (decision.kind === 'defer' && decision.claimProbe) {
      // Railhook half-open: ask the endpoint for the single probe turn, then decide again.
      const health = await deps.client.workflow
        .getHandle(req.endpointId)
        .executeUpdate(claimProbeUpdate, { args: [{ deliveryId: req.deliveryId }] });
      cache.invalidate(req.endpointId);
      snap = { ...snap, health };
      decision = sendDecision(snap.preset, health, decideAt(), opts);
    }
    const base = { ...notSentNow(), health: snap.health };
    if (decision.kind === 'defer') return { ...base, deferral: { code: decision.code, retryInMs: decision.retryInMs } };
    if (decision.kind === 'drop') return { ...base, drop: { code: decision.code, endAs: decision.endAs } };
    // Issue 17: the tenant is already cached (the subscription gate read it): no extra round trip.
    const tenant = deps.flowGate && tenants ? await tenants.get(req.tenantId) : undefined;
    const flow =
      deps.flowGate && (snap.flow || tenant?.rateLimit) ? await deps.flowGate.decide(req, snap, tenant) : undefined;
    if (flow?.kind === 'defer') return { ...base, deferral: flow.deferral };
    const releaseFlow = flow?.kind === 'send' ? flow.release : undefined;
    // Issue 17: over its share of this worker's slots, the endpoint's send waits (no attempt
    // spent) until one of its sends here ends; under it this is a counter, nothing more.
    if (share && !hold.take(probe || req.drainTurn === true)) {
      releaseFlow?.();
      return { ...base, deferral: share.deferral(req.endpointId, req.deliveryId) };
    }
    let result: SendResult;
    try {
      result = await send({
        ...req,
        target: { url: snap.url, secrets: snap.secrets, transformation: snap.transformation },
      });
    } finally {
      releaseFlow?.();
      hold.release();
    }
    // Issue 14.4: the delivery judges its outcome on the endpoint as it stands after it,
    // not on the read before the send (see shouldReport). Issue 16: a success under a preset
    // that never reports one is judged the same on any state, so it goes without that read.
    if (readSendResult(result).kind === 'delivered' && !successNeedsReadAfter(req.preset))
      return { ...result, health: snap.health };
    return { ...result, health: await healthAfterOutcome(cache, req.endpointId, snap.health) };
  }

  return {
    sendAttempt,
    ...createEndpointActivities({ ...deps, send, cache, billingEmail }),
    ...createTenantActivities(deps),
    ...createReplayActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

/** The running activity's cancellation; none when a test calls the send directly. */
function currentCancellation(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * A kept outcome was judged on the endpoint as read a task timeout ago: marked unconfirmed,
 * so the workflow reports it whatever that read said (shouldReport), and a failure other
 * deliveries reported meanwhile is not left standing.
 */
function keptOutcome(outcome: SendResult): SendResult {
  return {
    ...outcome,
    kept: true,
    ...(outcome.health ? { health: { ...outcome.health, unconfirmed: true as const } } : {}),
  };
}

import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { applyHealth, initialHealth, nextWakeAt } from '../health/engine.js';
import { healthBanner } from '../health/reporting.js';
import { NOTICE_ATTEMPT_MS, NOTICE_BACKOFF, NOTICE_RETRIES_MS } from '../notify/notice-retries.js';
import { HEALTH_MEMO_KEY, healthMemoCurrent } from '../shared/health-memo.js';
import { ReadRevision, SNAPSHOT_MEMO_KEY, firstExpiry } from '../shared/snapshot-memo.js';
import type { HealthInput, HealthState } from '../health/types.js';
import { presetWithOverrides } from '../policy/apply-overrides.js';
import {
  acquire,
  emptyFlow,
  expireLeases,
  flowOptionsOf,
  forgetOld,
  nextExpiry,
  release,
  reserveTurn,
  type FlowState,
  type Verdict,
} from '../flow/limiter.js';
import { askTurn, clearOrder, emptyOrder, enqueue, finish, headChecked, staleHeadAt } from '../flow/order.js';
import { wakeSignal } from '../shared/messages.js';
import {
  acquirePermitUpdate,
  reserveTurnsUpdate,
  claimProbeUpdate,
  enqueueOrderedSignal,
  orderDoneSignal,
  deleteEndpointUpdate,
  disableEndpointUpdate,
  endpointSnapshotQuery,
  endpointViewQuery,
  pauseEndpointUpdate,
  releasePermitSignal,
  reportHealthSignal,
  resumeEndpointUpdate,
  rotateSecretUpdate,
  sendTestUpdate,
  updateEndpointUpdate,
  verifyEndpointUpdate,
} from '../shared/endpoint-messages.js';
import type {
  CarriedEffect,
  EndpointConfig,
  EndpointInput,
  EndpointSnapshot,
  EndpointView,
  SigningSecret,
  TestResult,
} from '../shared/endpoint-types.js';
import { SA_ENDPOINT_STATUS } from '../shared/search-attributes.js';
import {
  afterChallenge,
  initialVerification,
  VERIFICATION_ERROR,
  type ChallengeResult,
  type VerificationState,
} from '../shared/verification.js';

const { endPendingDeliveries, wakePendingDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '1s', maximumInterval: '1 minute' },
});
const { drainHeldDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '14 days',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '1 minute' },
});
// Issue 17: the lookup of a silent head of an ordered queue (one describe).
const { isDeliveryRunning } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5 },
});
const NOTIFY_OPTIONS = {
  startToCloseTimeout: NOTICE_ATTEMPT_MS,
  retry: {
    initialInterval: NOTICE_BACKOFF.initialMs,
    maximumInterval: NOTICE_BACKOFF.maximumMs,
    backoffCoefficient: NOTICE_BACKOFF.coefficient,
  },
  // A notice stopped for a roll-over ends its attempt under way first: the next run sends it
  // again only if that attempt did not get through, so no notice goes out twice.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} as const;
const { sendTestDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});

// Issue 14.15: one try per challenge (a lost worker is retried once); the request's own
// timeout is the policy's, at most 60 s, so the activity always ends well within this.
const { sendVerificationChallenge } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 2 },
});

/** Issue 14.15's patch id: endpoint workflows send verification challenges. */
const ENDPOINT_VERIFICATION_PATCH = 'endpoint-verification-challenge';

/** Issue 14.14's patch id: endpoint workflows index their health status. */
const ENDPOINT_STATUS_ATTRIBUTE_PATCH = 'endpoint-status-search-attribute';

/** Issue 16's patch id: endpoint workflows keep their health in their memo. */
const ENDPOINT_HEALTH_MEMO_PATCH = 'endpoint-health-memo';

/** Issue 16's patch id: endpoint workflows count the changes to their snapshot in their memo. */
const ENDPOINT_SNAPSHOT_MEMO_PATCH = 'endpoint-snapshot-memo';

/**
 * A roll-over stops the notices still retrying and hands them to the next run, instead of
 * waiting for them: a notice whose mail server is down retries for hours, and meanwhile the
 * run took every update and signal, past Temporal's 2,000 updates per run (then refused) and
 * towards its history limit (the run ended by the server).
 */
const ROLLOVER_STOPS_NOTICES_PATCH = 'endpoint-rollover-stops-notices';

/** Well below Temporal's limits, so a busy unhealthy endpoint never nears them. */
const MAX_HISTORY_EVENTS = 5_000;
/** Issue 17: Temporal refuses updates past 2,000 per run; permits roll over well before. */
const MAX_PERMITS_PER_RUN = 1_200;

/**
 * One endpoint: its configuration, signing secrets and health (SPEC §1 "Endpoint"). A
 * long-lived entity that applies the preset's health rules to what deliveries report and
 * carries out what those rules decide: notices, cancelling or dead-lettering pending
 * deliveries, releasing held ones.
 */
export async function endpointWorkflow(input: EndpointInput): Promise<EndpointView> {
  let config: EndpointConfig = input.config;
  let secrets: SigningSecret[] = input.secrets;
  let health: HealthState = input.carried?.health ?? initialHealth();
  let deleted = input.carried?.deleted ?? false;
  let lastTest: TestResult | undefined = input.carried?.lastTest;
  // Issue 14.15: absent in histories from before verification, whose config has no mode.
  let verification: VerificationState =
    input.carried?.verification ?? initialVerification(config.verification);
  /** Bumped by every challenge and every URL or mode change: an older result is ignored. */
  let challengeGen = 0;
  /** A challenge was answered: deliveries waiting on it look again now, not at their recheck. */
  let wakeForVerification = false;
  // Carried ones first, in the order they were emitted. Only a run continued by this code
  // carries any, so a replay of an older run starts with none, as it did.
  const effects: CarriedEffect[] = [...(input.carried?.effects ?? [])];
  // A drain cut short by continueAsNew picks up where the held deliveries stand.
  if (health.draining && !effects.some((e) => e.kind === 'release_held')) effects.push({ kind: 'release_held' });
  const background = new Set<Promise<void>>();
  /** Notices in flight, each in a scope of its own, so that a roll-over can stop them. */
  const notices = new Map<CarriedEffect, CancellationScope>();
  let stoppingNotices = false;
  /** Notices stopped by the roll-over: the next run sends them. */
  const stoppedNotices: CarriedEffect[] = [];
  let drain: CancellationScope | undefined;
  // Issue 17: the flow limiter's state (only endpoints with flow options ever change it).
  const flow: FlowState = input.carried?.flow ?? emptyFlow();
  let permitsThisRun = 0;
  // Issue 17 (`ordering: 'fifo'`): a silent head to look up, and whether a lookup is out.
  let headToCheck: string | undefined;
  let checkingHead = false;
  const fifo = () => config.ordering === 'fifo';
  const order = () => (flow.order ??= emptyOrder());
  /** When to look up a silent head (only while someone waits behind it, on ordered endpoints). */
  const staleAt = () => (fifo() && !checkingHead && flow.order ? staleHeadAt(flow.order) : undefined);

  // Issue 14.14: HeraldEndpointStatus follows the health status. Upserted only when the
  // two differ: once per status change (never per delivery), and once for an endpoint
  // started before the attribute existed. patched(): histories recorded without it replay.
  const indexStatus = () => {
    if (workflowInfo().typedSearchAttributes.get(SA_ENDPOINT_STATUS) === health.status) return;
    if (patched(ENDPOINT_STATUS_ATTRIBUTE_PATCH))
      upsertSearchAttributes([{ key: SA_ENDPOINT_STATUS, value: health.status }]);
  };

  // Issue 16: deliveries read the health after their outcome from the memo, and check that
  // the snapshot they hold is current by its revision there (a describe, not a query).
  // Written in the task that makes the change, so the memo is never behind a completed
  // task; a plain success on a healthy endpoint changes nothing and writes nothing. Every
  // handler that changes what the snapshot or view query answers ends here.
  const revision = new ReadRevision();
  const memoize = () => {
    const fields: Record<string, unknown> = {};
    if (!healthMemoCurrent(workflowInfo().memo, health) && patched(ENDPOINT_HEALTH_MEMO_PATCH))
      fields[HEALTH_MEMO_KEY] = health;
    if (revision.note(readContent(), workflowInfo().memo) && patched(ENDPOINT_SNAPSHOT_MEMO_PATCH))
      fields[SNAPSHOT_MEMO_KEY] = revision.rev;
    if (Object.keys(fields).length > 0) upsertMemo(fields);
  };

  const apply = (hi: HealthInput) => {
    const t = applyHealth(config.preset, health, hi);
    health = t.state;
    effects.push(...t.effects);
    indexStatus();
    memoize();
  };

  const liveSecrets = () => {
    const now = Date.now();
    return secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now);
  };

  const view = (): EndpointView => ({
    endpointId: input.endpointId,
    tenantId: input.tenantId,
    config,
    health,
    banner: healthBanner(health),
    lastTest,
    secretCount: liveSecrets().length,
    createdAt: input.createdAt,
    deleted,
    verification,
  });

  const snapshotContent = (): EndpointSnapshot => ({
    endpointId: input.endpointId,
    tenantId: input.tenantId,
    preset: config.preset,
    url: config.url,
    secrets: liveSecrets()
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((s) => s.secret),
    health,
    deleted,
    transformation: config.transformation,
    verification: verification.mode === 'challenge' ? verification.status : undefined,
    ...(flowOptionsOf(config) ? { flow: flowOptionsOf(config) } : {}),
  });
  /** What the snapshot and view queries answer, as the revision counts it. */
  const readContent = () => JSON.stringify([snapshotContent(), view()]);
  // A secret past its grace period changes the answer by itself: its reader asks again then.
  const stamp = () => revision.stamp(readContent(), workflowInfo().runId, firstExpiry(liveSecrets()));

  /** Issue 17: a slot freed or a wait ended: the delivery looks again now (a wake, not a poll). */
  const wakeAll = (ids: string[]) => {
    for (const id of ids)
      track(
        getExternalWorkflowHandle(id)
          .signal(wakeSignal)
          .catch(() => undefined),
      );
  };

  /**
   * Issue 14.15: sends one challenge to the current URL and keeps its outcome, unless the
   * URL, the mode or a newer challenge overtook it. `markPending` (create, URL change) makes
   * deliveries wait for the answer; a repeat through /verify leaves the status standing.
   */
  const runChallenge = async (markPending: boolean): Promise<ChallengeResult | undefined> => {
    if (verification.mode !== 'challenge' || deleted) return undefined;
    // Only endpoints with mode `challenge` get here, which no history recorded before this
    // code has; the marker keeps any such history replaying without the new commands.
    if (!patched(ENDPOINT_VERIFICATION_PATCH)) return undefined;
    const gen = ++challengeGen;
    if (markPending) verification = { mode: 'challenge', status: 'pending' };
    const url = config.url;
    const policy = presetWithOverrides(config.preset, config.policy);
    let r: ChallengeResult;
    try {
      r = await sendVerificationChallenge({
        endpointId: input.endpointId,
        url,
        secrets: snapshotContent().secrets,
        timeoutSeconds: policy.timeoutSeconds,
        deliveryIdHeader: policy.deliveryIdHeader,
      });
    } catch {
      r = {
        ok: false,
        at: Date.now(),
        url,
        code: VERIFICATION_ERROR,
        detail: 'the challenge could not be sent',
        latencyMs: 0,
      };
    }
    if (gen !== challengeGen || url !== config.url || verification.mode !== 'challenge') return r;
    verification = afterChallenge(verification, r);
    memoize();
    wakeForVerification = true;
    return r;
  };

  setHandler(endpointSnapshotQuery, () => ({ ...snapshotContent(), ...stamp() }));
  setHandler(endpointViewQuery, () => ({ ...view(), ...stamp() }));
  setHandler(reportHealthSignal, (hi) => {
    if (!deleted) apply(hi);
  });
  setHandler(updateEndpointUpdate, (patch) => {
    const urlChanged = patch.url !== undefined && patch.url !== config.url;
    const modeBefore = config.verification ?? 'none';
    const { operationalWebhook, transformation, unset, ...rest } = patch;
    config = { ...config, ...rest };
    // Issue 17: a flow option set to null in the API is removed.
    if (unset?.length) {
      const c: EndpointConfig = { ...config };
      for (const k of unset) delete c[k];
      config = c;
    }
    // A slot limit raised or removed: waiters get the free slots now.
    if (unset?.length || rest.maxInFlight !== undefined)
      wakeAll(expireLeases(flow, flowOptionsOf(config) ?? {}, Date.now()));
    // Issue 17: ordering switched off: nobody waits for an earlier delivery any more.
    if (!fifo() && flow.order?.queue.length) wakeAll(clearOrder(flow.order));
    if (operationalWebhook !== undefined)
      config = { ...config, operationalWebhook: operationalWebhook ?? undefined };
    if (transformation !== undefined) config = { ...config, transformation: transformation ?? undefined };
    // Issue 14.15: a new URL is verified again; switching the mode starts (or ends) it.
    const mode = config.verification ?? 'none';
    if (!deleted && (mode !== modeBefore || (urlChanged && mode === 'challenge'))) {
      challengeGen++;
      verification = initialVerification(mode);
      if (mode === 'challenge') track(runChallenge(true).then(() => undefined));
    }
    // Bird: a new URL clears degradation; description or filter edits do not.
    apply(urlChanged ? { kind: 'url_changed', at: Date.now() } : { kind: 'config_edited', at: Date.now() });
    return view();
  });
  setHandler(pauseEndpointUpdate, () => {
    apply({ kind: 'pause', at: Date.now() });
    return view();
  });
  setHandler(resumeEndpointUpdate, () => {
    apply({ kind: 'resume', at: Date.now() });
    return view();
  });
  setHandler(disableEndpointUpdate, ({ reason }) => {
    apply({ kind: 'disable', at: Date.now(), reason });
    return view();
  });
  setHandler(rotateSecretUpdate, ({ secret, graceSeconds }) => {
    const now = Date.now();
    // The old secrets keep signing through the grace period, then drop off (R-SIGN).
    secrets = [
      { secret, createdAt: now },
      ...liveSecrets().map((s) => ({
        ...s,
        expiresAt: Math.min(s.expiresAt ?? Infinity, now + graceSeconds * 1000),
      })),
    ];
    memoize();
    return view();
  });
  setHandler(sendTestUpdate, async () => {
    const policy = presetWithOverrides(config.preset, config.policy);
    const r = await sendTestDelivery({
      endpointId: input.endpointId,
      url: config.url,
      secrets: snapshotContent().secrets,
      timeoutSeconds: policy.timeoutSeconds,
      deliveryIdHeader: policy.deliveryIdHeader,
    });
    lastTest = r;
    apply({ kind: 'test_result', at: r.at, ok: r.ok });
    return r;
  });
  setHandler(deleteEndpointUpdate, () => {
    if (!deleted) {
      deleted = true;
      effects.push({ kind: 'kill_pending', code: 'endpoint_disabled' });
      memoize();
    }
    return view();
  });
  setHandler(verifyEndpointUpdate, async () => {
    const result = await runChallenge(false);
    return { verification, ...(result ? { result } : {}) };
  });
  setHandler(acquirePermitUpdate, ({ requests }) => {
    permitsThisRun++;
    const o = flowOptionsOf(config) ?? {};
    return requests.map((r): Verdict => {
      const now = Date.now();
      // Issue 17: an ordered send goes only as the head of the queue; the wait is checked
      // first, so a delivery waiting its turn holds no slot and spends no token.
      if (r.ordered && fifo()) {
        const t = askTurn(order(), r.deliveryId, now);
        if (!t.ok) return { granted: false, code: t.code, retryInMs: t.retryInMs };
      }
      const { verdict, wake } = acquire(flow, o, r, now);
      wakeAll(wake);
      return verdict;
    });
  });
  setHandler(reserveTurnsUpdate, ({ deliveryIds }) => {
    permitsThisRun++;
    const rate = flowOptionsOf(config)?.rateLimit;
    const now = Date.now();
    forgetOld(flow, now);
    return deliveryIds.map((id) => (rate && !deleted ? reserveTurn(flow, rate, id, now) : null));
  });
  setHandler(enqueueOrderedSignal, ({ deliveryIds }) => {
    if (fifo() && !deleted) enqueue(order(), deliveryIds, Date.now());
  });
  setHandler(orderDoneSignal, ({ deliveryId }) => {
    if (flow.order) wakeAll(finish(flow.order, deliveryId, Date.now()));
  });
  setHandler(releasePermitSignal, ({ deliveryId, holder }) => {
    wakeAll(release(flow, flowOptionsOf(config) ?? {}, deliveryId, Date.now(), holder));
  });
  setHandler(claimProbeUpdate, ({ deliveryId }) => {
    apply({ kind: 'probe_claim', at: Date.now(), deliveryId });
    return health;
  });

  const track = (p: Promise<void>) => {
    background.add(p);
    void p.finally(() => background.delete(p));
  };

  const runEffect = async (e: CarriedEffect): Promise<void> => {
    const endpointId = input.endpointId;
    switch (e.kind) {
      case 'notify': {
        const since = e.retryingSince ?? Date.now();
        const left = since + NOTICE_RETRIES_MS - Date.now();
        if (left <= 0) {
          log.warn('notification failed for good', { endpointId, notice: e.notice, err: 'retries used up' });
          return;
        }
        const { notifyEndpoint } = proxyActivities<Activities>({
          ...NOTIFY_OPTIONS,
          scheduleToCloseTimeout: left,
        });
        // Notices retry on their own schedule; they must not hold up cancelling deliveries.
        const scope = new CancellationScope();
        notices.set(e, scope);
        const sent = scope.run(() =>
          notifyEndpoint({
            notice: e.notice,
            ctx: {
              tenantId: input.tenantId,
              endpointId,
              url: config.url,
              reason: health.reason,
              at: health.since ?? Date.now(),
              episode: e.episode,
              preset: config.preset,
              description: config.description,
            },
            createdBy: config.createdBy,
            operationalWebhook: config.operationalWebhook,
          }),
        );
        track(
          sent.then(
            () => void notices.delete(e),
            (err) => {
              notices.delete(e);
              if (stoppingNotices) stoppedNotices.push({ ...e, retryingSince: since });
              else log.warn('notification failed for good', { endpointId, notice: e.notice, err: String(err) });
            },
          ),
        );
        return;
      }
      case 'kill_pending':
        await endPendingDeliveries({ endpointId, status: 'dead', code: e.code });
        return;
      case 'dead_letter_held':
        await endPendingDeliveries({ endpointId, status: 'exhausted', code: e.code });
        return;
      case 'fail_pending':
        await endPendingDeliveries({ endpointId, status: 'failed', code: e.code });
        return;
      case 'release_held':
        if (!health.draining) {
          await wakePendingDeliveries({ endpointId });
          return;
        }
        drain?.cancel();
        drain = new CancellationScope();
        track(
          drain
            .run(() => drainHeldDeliveries({ endpointId }))
            .then(
              (r) => {
                if (!r.stopped) apply({ kind: 'drain_completed', at: Date.now() });
              },
              (err) => {
                if (!isCancellation(err)) throw err;
              },
            ),
        );
        return;
      case 'stop_drain':
        drain?.cancel();
        drain = undefined;
        return;
    }
  };

  const mustRollOver = () =>
    workflowInfo().continueAsNewSuggested ||
    workflowInfo().historyLength > MAX_HISTORY_EVENTS ||
    permitsThisRun > MAX_PERMITS_PER_RUN;

  // A run started before the memo existed, or continued without it, writes it once.
  memoize();

  // Issue 14.15: a new endpoint's first challenge (or one a continue-as-new cut short).
  if (verification.status === 'pending') track(runChallenge(true).then(() => undefined));

  for (;;) {
    const wakeAt = nextWakeAt(config.preset, health);
    // Issue 17: a lease of a killed worker's send runs out: its slot goes to a waiter. Only
    // endpoints with maxInFlight have leases, so no other history gets this timer. An ordered
    // endpoint also looks up a head silent for too long; only ordered endpoints with someone
    // waiting have that time.
    const leaseAt = nextExpiry(flow);
    const headAt = staleAt();
    const flowAt = headAt !== undefined && (leaseAt === undefined || headAt < leaseAt) ? headAt : leaseAt;
    // A lease that runs out sooner than the one watched (or the first one) restarts the wait.
    const sooner = () => {
      const at = nextExpiry(flow);
      const head = staleAt();
      return (
        (at !== undefined && (flowAt === undefined || at < flowAt)) ||
        (head !== undefined && (flowAt === undefined || head < flowAt))
      );
    };
    const ready = () =>
      effects.length > 0 ||
      headToCheck !== undefined ||
      wakeForVerification ||
      (deleted && background.size === 0) ||
      mustRollOver() ||
      sooner();
    if (flowAt !== undefined && (wakeAt === undefined || flowAt < wakeAt)) {
      if (!(await condition(ready, Math.max(1, flowAt - Date.now())))) {
        wakeAll(expireLeases(flow, flowOptionsOf(config) ?? {}, Date.now()));
        const head = flow.order?.queue[0];
        const due = staleAt();
        if (head !== undefined && due !== undefined && due <= Date.now()) headToCheck = head;
      }
    } else if (wakeAt === undefined) await condition(ready);
    else if (!(await condition(ready, Math.max(1, wakeAt - Date.now()))))
      apply({ kind: 'tick', at: Date.now() });

    while (effects.length > 0) await runEffect(effects.shift()!);
    // Issue 17: a head of the ordered queue silent while later ones wait: one that is not
    // running any more (terminated, never started) is dropped, and the next one woken.
    if (headToCheck !== undefined) {
      const id = headToCheck;
      headToCheck = undefined;
      checkingHead = true;
      track(
        isDeliveryRunning({ deliveryId: id }).then(
          (running) => {
            checkingHead = false;
            if (flow.order) wakeAll(headChecked(flow.order, id, running, Date.now()));
          },
          () => {
            checkingHead = false;
          },
        ),
      );
    }
    if (wakeForVerification) {
      wakeForVerification = false;
      await wakePendingDeliveries({ endpointId: input.endpointId });
    }

    if (deleted && effects.length === 0 && background.size === 0) {
      await condition(allHandlersFinished);
      return view();
    }
    if (mustRollOver() && effects.length === 0) {
      // Let in-flight notices and the drain settle so nothing is dropped between runs.
      drain?.cancel();
      if (notices.size > 0 && patched(ROLLOVER_STOPS_NOTICES_PATCH)) {
        stoppingNotices = true;
        for (const scope of notices.values()) scope.cancel();
      }
      await Promise.allSettled([...background]);
      await condition(allHandlersFinished);
      // Handlers ran while this run waited (a pause, a disable, an outcome): their effects
      // go with the state they changed, or a notice or a kill_pending would be lost. The
      // notices stopped above came first.
      const pending = [...stoppedNotices.splice(0), ...effects.splice(0)];
      await continueAsNew<typeof endpointWorkflow>({
        ...input,
        config,
        secrets,
        carried: {
          health,
          deleted,
          lastTest,
          verification,
          ...(flowOptionsOf(config) || permitsThisRun > 0 ? { flow } : {}),
          ...(pending.length > 0 ? { effects: pending } : {}),
        },
      });
    }
  }
}

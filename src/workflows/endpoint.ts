import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { applyHealth, initialHealth, nextWakeAt } from '../health/engine.js';
import { healthBanner } from '../health/reporting.js';
import type { HealthEffect, HealthInput, HealthState } from '../health/types.js';
import { presetWithOverrides } from '../policy/apply-overrides.js';
import {
  claimProbeUpdate,
  deleteEndpointUpdate,
  disableEndpointUpdate,
  endpointSnapshotQuery,
  endpointViewQuery,
  pauseEndpointUpdate,
  reportHealthSignal,
  resumeEndpointUpdate,
  rotateSecretUpdate,
  sendTestUpdate,
  updateEndpointUpdate,
} from '../shared/endpoint-messages.js';
import type {
  EndpointConfig,
  EndpointInput,
  EndpointSnapshot,
  EndpointView,
  SigningSecret,
  TestResult,
} from '../shared/endpoint-types.js';

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
const { notifyEndpoint } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '10s', maximumInterval: '10 minutes', maximumAttempts: 20 },
});
const { sendTestDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});

/** Well below Temporal's limits, so a busy unhealthy endpoint never nears them. */
const MAX_HISTORY_EVENTS = 5_000;

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
  const effects: HealthEffect[] = [];
  // A drain cut short by continueAsNew picks up where the held deliveries stand.
  if (health.draining) effects.push({ kind: 'release_held' });
  const background = new Set<Promise<void>>();
  let drain: CancellationScope | undefined;

  const apply = (hi: HealthInput) => {
    const t = applyHealth(config.preset, health, hi);
    health = t.state;
    effects.push(...t.effects);
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
  });

  const snapshot = (): EndpointSnapshot => ({
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
  });

  setHandler(endpointSnapshotQuery, snapshot);
  setHandler(endpointViewQuery, view);
  setHandler(reportHealthSignal, (hi) => {
    if (!deleted) apply(hi);
  });
  setHandler(updateEndpointUpdate, (patch) => {
    const urlChanged = patch.url !== undefined && patch.url !== config.url;
    const { operationalWebhook, transformation, ...rest } = patch;
    config = { ...config, ...rest };
    if (operationalWebhook !== undefined)
      config = { ...config, operationalWebhook: operationalWebhook ?? undefined };
    if (transformation !== undefined) config = { ...config, transformation: transformation ?? undefined };
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
    return view();
  });
  setHandler(sendTestUpdate, async () => {
    const policy = presetWithOverrides(config.preset, config.policy);
    const r = await sendTestDelivery({
      endpointId: input.endpointId,
      url: config.url,
      secrets: snapshot().secrets,
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
    }
    return view();
  });
  setHandler(claimProbeUpdate, ({ deliveryId }) => {
    apply({ kind: 'probe_claim', at: Date.now(), deliveryId });
    return health;
  });

  const track = (p: Promise<void>) => {
    background.add(p);
    void p.finally(() => background.delete(p));
  };

  const runEffect = async (e: HealthEffect): Promise<void> => {
    const endpointId = input.endpointId;
    switch (e.kind) {
      case 'notify':
        // Notices retry on their own schedule; they must not hold up cancelling deliveries.
        track(
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
          }).then(
            () => undefined,
            (err) =>
              log.warn('notification failed for good', { endpointId, notice: e.notice, err: String(err) }),
          ),
        );
        return;
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
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS;

  for (;;) {
    const wakeAt = nextWakeAt(config.preset, health);
    const ready = () => effects.length > 0 || (deleted && background.size === 0) || mustRollOver();
    if (wakeAt === undefined) await condition(ready);
    else if (!(await condition(ready, Math.max(1, wakeAt - Date.now()))))
      apply({ kind: 'tick', at: Date.now() });

    while (effects.length > 0) await runEffect(effects.shift()!);

    if (deleted && effects.length === 0 && background.size === 0) {
      await condition(allHandlersFinished);
      return view();
    }
    if (mustRollOver() && effects.length === 0) {
      // Let in-flight notices and the drain settle so nothing is dropped between runs.
      drain?.cancel();
      await Promise.allSettled([...background]);
      await condition(allHandlersFinished);
      await continueAsNew<typeof endpointWorkflow>({
        ...input,
        config,
        secrets,
        carried: { health, deleted, lastTest },
      });
    }
  }
}

import { initialHealth } from '../health/engine.js';
import { healthBanner } from '../health/reporting.js';
import { refusesPrivateAtSave } from '../policy/presets.js';
import type { PresetName } from '../policy/types.js';
import { checkEndpointUrl, type UrlCheckOptions } from '../policy/url-check.js';
import type {
  EndpointConfig,
  EndpointInput,
  EndpointPatch,
  EndpointView,
  FlowOptionName,
  OperationalWebhook,
} from '../shared/endpoint-types.js';
import type { RateLimit } from '../flow/limiter.js';
import { initialVerification } from '../shared/verification.js';
import { validateTransformation } from '../transform/expression.js';
import type { EndpointStore } from '../store/endpoints.js';
import { refuse } from './refusal.js';
import { startWithinCap } from './tenant-cap.js';

export type AddressCheck = (
  url: URL,
) => Promise<{ ok: true } | { ok: false; code: 'private_address' | 'dns_failed'; message: string }>;

export interface EndpointSettings {
  defaultPreset: PresetName;
  /** Issue 13.6: HERALD_MAX_ENDPOINTS_PER_TENANT. */
  maxEndpoints: number;
  urlCheck: UrlCheckOptions;
  /** Issue 14.9: the save-time address check, with the sender's resolver and allow list. */
  checkAddresses: AddressCheck;
  /** Runs a tenant's creates one after another, so "count, then start" holds under concurrency. */
  oneAtATime<T>(tenantId: string, task: () => Promise<T>): Promise<T>;
  newEndpointId(): string;
  newSecret(): string;
  now(): number;
}

/** R-ROTATE: the old secret keeps signing this long after a rotation. */
export const ROTATION_GRACE_SECONDS = 24 * 3600;

export type CreateEndpoint = Omit<EndpointConfig, 'preset' | 'operationalWebhook'> & {
  preset?: PresetName;
  operationalWebhook?: { url: string };
};
export type ChangeEndpoint = Omit<EndpointPatch, 'operationalWebhook' | FlowOptionName | 'unset'> & {
  operationalWebhook?: { url: string } | null;
  /** Issue 17: null removes the option. */
  rateLimit?: RateLimit | null;
  maxInFlight?: number | null;
  ordering?: 'fifo' | null;
};

const FLOW_OPTIONS: readonly FlowOptionName[] = ['rateLimit', 'maxInFlight', 'ordering'];

/**
 * R-URL on create and update. A preset that refuses a private address when the URL is set
 * (Bird) also resolves the host: an IP literal, and since issue 14.9 a hostname that
 * resolves to one (or to nothing). Operational webhooks follow the standard rule.
 */
async function checkUrl(s: EndpointSettings, url: string, preset: PresetName, path: string) {
  const r = checkEndpointUrl(url, s.urlCheck);
  if (!r.ok) refuse('invalid', r.code, 'The endpoint URL is not allowed', r.message, { path });
  if (!refusesPrivateAtSave(preset)) return;
  const a = await s.checkAddresses(r.url);
  if (!a.ok)
    refuse(
      'invalid',
      a.code,
      a.code === 'private_address'
        ? 'The endpoint URL points at a private address'
        : 'The endpoint URL does not resolve',
      a.message,
      { path },
    );
}

/** R-RH-TRANSFORM: a transformation is checked when it is saved; a syntax error names it. */
function checkTransformation(expression: string) {
  const v = validateTransformation(expression);
  if (!v.ok)
    refuse(
      'invalid',
      'invalid_transformation',
      'The transformation is not a valid JSONata expression',
      v.message,
      {
        path: 'transformation',
        ...(v.position !== undefined ? { position: v.position } : {}),
      },
    );
}

/** What a change answered, or the refusal of an endpoint deleted since it was read. */
function stillThere<T>(v: T | undefined): T {
  return v ?? refuse('not_found', 'endpoint_not_found', 'No such endpoint');
}

async function owned(store: EndpointStore, tenantId: string, endpointId: string): Promise<EndpointView> {
  // Another tenant's endpoint and a missing one look the same.
  return stillThere(await store.endpoint(tenantId, endpointId));
}

export interface Created {
  endpoint: EndpointView;
  secret: string;
  operationalWebhookSecret?: string;
}

export async function createEndpoint(
  store: EndpointStore,
  s: EndpointSettings,
  tenantId: string,
  body: CreateEndpoint,
): Promise<Created> {
  const preset = body.preset ?? s.defaultPreset;
  await checkUrl(s, body.url, preset, 'url');
  if (body.transformation !== undefined) checkTransformation(body.transformation);
  if (body.operationalWebhook) await checkUrl(s, body.operationalWebhook.url, 'standard', 'url');
  const endpointId = s.newEndpointId();
  const secret = s.newSecret();
  const now = s.now();
  const opSecret = body.operationalWebhook ? s.newSecret() : undefined;
  const config: EndpointConfig = {
    ...body,
    preset,
    operationalWebhook: body.operationalWebhook
      ? { url: body.operationalWebhook.url, secrets: [opSecret!] }
      : undefined,
    // Issue 14.15: absent is `none`, under every preset (railhook included).
    verification: body.verification,
  };
  const input: EndpointInput = {
    endpointId,
    tenantId,
    config,
    secrets: [{ secret, createdAt: now }],
    createdAt: now,
  };
  // Issue 13.6: every endpoint is a workflow and a fan-out target of each publish. Counted
  // after the cheap checks (it asks visibility), one create per tenant at a time.
  const cap = { oneAtATime: s.oneAtATime, max: s.maxEndpoints, noun: 'endpoint' };
  await startWithinCap(
    cap,
    tenantId,
    () => store.endpointCount(tenantId),
    () => store.start(input),
  );
  // Answered from what was just started, not read back with a query: a query waits for the
  // endpoint's first workflow task, and a create must not fail because deliveries are busy.
  const health = initialHealth();
  const endpoint: EndpointView = {
    endpointId,
    tenantId,
    config,
    health,
    banner: healthBanner(health),
    secretCount: input.secrets.length,
    createdAt: now,
    deleted: false,
    // `pending` with `challenge`: the endpoint sends its first challenge as it starts.
    verification: initialVerification(config.verification),
  };
  return { endpoint, secret, ...(opSecret ? { operationalWebhookSecret: opSecret } : {}) };
}

export async function getEndpoint(store: EndpointStore, tenantId: string, endpointId: string) {
  return owned(store, tenantId, endpointId);
}

export async function changeEndpoint(
  store: EndpointStore,
  s: EndpointSettings,
  tenantId: string,
  endpointId: string,
  patch: ChangeEndpoint,
): Promise<EndpointView> {
  const current = await owned(store, tenantId, endpointId);
  if (patch.url !== undefined) await checkUrl(s, patch.url, current.config.preset, 'url');
  if (patch.operationalWebhook) await checkUrl(s, patch.operationalWebhook.url, 'standard', 'url');
  // R-RH-TRANSFORM: null removes the transformation.
  if (typeof patch.transformation === 'string') checkTransformation(patch.transformation);
  const { operationalWebhook, rateLimit, maxInFlight, ordering, ...rest } = patch;
  // Issue 17: a null flow option is removed; a value replaces the current one.
  const flowSet = { rateLimit, maxInFlight, ordering };
  const flow: Pick<EndpointPatch, FlowOptionName | 'unset'> = {};
  const unset = FLOW_OPTIONS.filter((k) => flowSet[k] === null);
  if (unset.length > 0) flow.unset = unset;
  if (rateLimit) flow.rateLimit = rateLimit;
  if (typeof maxInFlight === 'number') flow.maxInFlight = maxInFlight;
  if (ordering) flow.ordering = ordering;
  // A new operational webhook URL keeps the secrets it was given; the first one gets one.
  const ow: { operationalWebhook?: OperationalWebhook | null } =
    operationalWebhook === null
      ? { operationalWebhook: null }
      : operationalWebhook
        ? {
            operationalWebhook: {
              url: operationalWebhook.url,
              secrets: current.config.operationalWebhook?.secrets ?? [s.newSecret()],
            },
          }
        : {};
  const view = await store.update(endpointId, { ...rest, ...flow, ...ow });
  store.changed(tenantId);
  return stillThere(view);
}

export async function deleteEndpoint(store: EndpointStore, tenantId: string, endpointId: string) {
  await owned(store, tenantId, endpointId);
  const removed = await store.remove(endpointId);
  store.changed(tenantId);
  stillThere(removed);
}

/** Pause, resume, test and rotate: on the tenant's own endpoint only. */
export async function endpointAction<T>(
  store: EndpointStore,
  tenantId: string,
  endpointId: string,
  run: (id: string) => Promise<T | undefined>,
): Promise<T> {
  await owned(store, tenantId, endpointId);
  const r = await run(endpointId);
  store.changed(tenantId);
  return stillThere(r);
}

export async function rotateSecret(
  store: EndpointStore,
  s: EndpointSettings,
  tenantId: string,
  endpointId: string,
) {
  const secret = s.newSecret();
  const endpoint = await endpointAction(store, tenantId, endpointId, (id) =>
    store.rotateSecret(id, secret, ROTATION_GRACE_SECONDS),
  );
  return { endpoint, secret };
}

/** Issue 14.15: repeats the challenge and answers with what came of it. */
export async function verifyEndpoint(store: EndpointStore, tenantId: string, endpointId: string) {
  const current = await owned(store, tenantId, endpointId);
  if (current.config.verification !== 'challenge')
    refuse(
      'conflict',
      'verification_not_enabled',
      'The endpoint does not use verification',
      'Set "verification": "challenge" first',
      { path: 'verification' },
    );
  const r = stillThere(await store.verify(endpointId));
  store.changed(tenantId);
  return { verified: r.verification.status === 'verified', ...r };
}

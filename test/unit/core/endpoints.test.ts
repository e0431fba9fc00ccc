import { describe, expect, it } from 'vitest';
import { OneAtATime } from '../../../src/api/one-at-a-time.js';
import {
  ROTATION_GRACE_SECONDS,
  changeEndpoint,
  createEndpoint,
  deleteEndpoint,
  endpointAction,
  getEndpoint,
  rotateSecret,
  verifyEndpoint,
  type EndpointSettings,
} from '../../../src/core/endpoints.js';
import { Refusal } from '../../../src/core/refusal.js';
import { initialHealth } from '../../../src/health/common.js';
import { PRESET_NAMES, type PresetName } from '../../../src/policy/policy.js';
import { refusesPrivateAtSave } from '../../../src/policy/presets.js';
import type { EndpointInput, EndpointPatch, EndpointView } from '../../../src/shared/endpoint-types.js';
import type { EndpointStore } from '../../../src/store/endpoints.js';

const T = 'tn_a';
const OTHER = 'tn_b';

/** Endpoint workflows as data: a start makes a view, an update changes it. */
class FakeEndpointStore implements EndpointStore {
  readonly views = new Map<string, EndpointView>();
  readonly started: EndpointInput[] = [];
  readonly updates: Array<{ id: string; patch: EndpointPatch }> = [];
  readonly calls: string[] = [];
  readonly forgotten: string[] = [];
  /** Lets a test hold the count read open, as a slow visibility answer would. */
  countDelay = 0;
  /** Endpoints whose workflow has closed since they were read (a delete that raced). */
  readonly closed = new Set<string>();

  async endpoint(tenantId: string, id: string) {
    const v = this.views.get(id);
    return v && v.tenantId === tenantId && !v.deleted ? v : undefined;
  }
  async endpointCount(tenantId: string) {
    const n = [...this.views.values()].filter((v) => v.tenantId === tenantId && !v.deleted).length;
    if (this.countDelay) await new Promise((r) => setTimeout(r, this.countDelay));
    return n;
  }
  async start(input: EndpointInput) {
    this.started.push(input);
    this.views.set(input.endpointId, {
      endpointId: input.endpointId,
      tenantId: input.tenantId,
      config: input.config,
      health: initialHealth(),
      secretCount: input.secrets.length,
      createdAt: input.createdAt,
      deleted: false,
    });
  }
  async update(id: string, patch: EndpointPatch) {
    this.updates.push({ id, patch });
    const v = this.views.get(id)!;
    const { transformation, operationalWebhook, ...rest } = patch;
    const config = { ...v.config, ...rest };
    if (transformation !== undefined) config.transformation = transformation ?? undefined;
    if (operationalWebhook !== undefined) config.operationalWebhook = operationalWebhook ?? undefined;
    const next = { ...v, config };
    this.views.set(id, next);
    return next;
  }
  async remove(id: string) {
    this.calls.push(`remove ${id}`);
    if (this.closed.has(id)) return undefined;
    this.views.set(id, { ...this.views.get(id)!, deleted: true });
    return true as const;
  }
  async pause(id: string) {
    this.calls.push(`pause ${id}`);
    return this.closed.has(id) ? undefined : this.views.get(id)!;
  }
  async resume(id: string) {
    this.calls.push(`resume ${id}`);
    return this.views.get(id)!;
  }
  async sendTest(id: string) {
    this.calls.push(`test ${id}`);
    return { ok: true, at: 0, httpStatus: 200, latencyMs: 1 };
  }
  async rotateSecret(id: string, secret: string, graceSeconds: number) {
    this.calls.push(`rotate ${id} ${secret} ${graceSeconds}`);
    return this.views.get(id)!;
  }
  async verify(id: string) {
    this.calls.push(`verify ${id}`);
    return { verification: { mode: 'challenge' as const, status: 'verified' as const } };
  }
  changed(tenantId: string) {
    this.forgotten.push(tenantId);
  }
}

function settings(o: Partial<EndpointSettings> & { privateHosts?: string[] } = {}) {
  const resolved: string[] = [];
  let n = 0;
  const creates = new OneAtATime();
  const s: EndpointSettings = {
    defaultPreset: 'standard',
    maxEndpoints: 100,
    urlCheck: {},
    // The save-time lookup, as data: these hosts resolve to a private address.
    checkAddresses: async (url) => {
      resolved.push(url.hostname);
      return (o.privateHosts ?? []).includes(url.hostname)
        ? {
            ok: false,
            code: 'private_address',
            message: `${url.hostname} resolves to an address that is not public`,
          }
        : { ok: true };
    },
    oneAtATime: (k, task) => creates.run(k, task),
    newEndpointId: () => `ep_${++n}`,
    newSecret: () => `whsec_${n}_${Math.random().toString(36).slice(2)}`,
    now: () => 1_000,
    ...o,
  };
  return { s, resolved };
}

async function refusalOf(p: Promise<unknown>): Promise<Refusal> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Refusal);
  return err as Refusal;
}

describe('core/endpoints: create, change and act on an endpoint (fake store)', () => {
  it('R-URL: a URL the rules refuse is a 400 naming `url`, and no endpoint is started', async () => {
    const store = new FakeEndpointStore();
    const { s } = settings();
    const r = await refusalOf(createEndpoint(store, s, T, { url: 'http://hooks.example.com/x' }));
    expect([r.kind, r.code, r.extra]).toEqual(['invalid', 'not_https', { path: 'url' }]);
    const op = await refusalOf(
      createEndpoint(store, s, T, {
        url: 'https://hooks.example.com/x',
        operationalWebhook: { url: 'ftp://x.test' },
      }),
    );
    expect(op.kind).toBe('invalid');
    expect(store.started).toEqual([]);
  });

  it('14.9 R-BIRD-URL: the presets that refuse a private address at save resolve the host; the others do not look it up', async () => {
    expect(PRESET_NAMES.filter(refusesPrivateAtSave)).toEqual(['bird']);
    for (const preset of PRESET_NAMES) {
      const store = new FakeEndpointStore();
      const { s, resolved } = settings({ privateHosts: ['internal.example.com'] });
      const create = createEndpoint(store, s, T, { url: 'https://internal.example.com/hook', preset });
      if (refusesPrivateAtSave(preset)) {
        const r = await refusalOf(create);
        expect([r.kind, r.code, r.extra]).toEqual(['invalid', 'private_address', { path: 'url' }]);
        expect(resolved).toEqual(['internal.example.com']);
        expect(store.started).toEqual([]);
      } else {
        await create;
        expect(resolved, preset).toEqual([]);
        expect(store.started).toHaveLength(1);
      }
    }
  });

  it("14.9 R-BIRD-URL: changing a Bird endpoint's URL to a private one is refused, and the endpoint keeps its URL", async () => {
    const store = new FakeEndpointStore();
    const { s } = settings({ privateHosts: ['10-0-0-1.example.com'] });
    const { endpoint } = await createEndpoint(store, s, T, {
      url: 'https://public.example.com/h',
      preset: 'bird',
    });
    const r = await refusalOf(
      changeEndpoint(store, s, T, endpoint.endpointId, { url: 'https://10-0-0-1.example.com/h' }),
    );
    expect(r.code).toBe('private_address');
    expect(store.updates).toEqual([]);
    expect((await getEndpoint(store, T, endpoint.endpointId)).config.url).toBe(
      'https://public.example.com/h',
    );
  });

  it('create: the default preset when none is given, the secret shown once, an operational webhook with its own secret', async () => {
    const store = new FakeEndpointStore();
    const { s } = settings({ defaultPreset: 'dongtien' as PresetName });
    const r = await createEndpoint(store, s, T, {
      url: 'https://hooks.example.com/a',
      eventTypes: ['order.*'],
      operationalWebhook: { url: 'https://ops.example.com/h' },
    });
    expect(r.endpoint.config.preset).toBe('dongtien');
    expect(r.endpoint.config.eventTypes).toEqual(['order.*']);
    expect(r.endpoint.health.status).toBe('active');
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.operationalWebhookSecret).toMatch(/^whsec_/);
    expect(r.operationalWebhookSecret).not.toBe(r.secret);
    const started = store.started[0]!;
    expect(started.secrets).toEqual([{ secret: r.secret, createdAt: 1_000 }]);
    expect(started.config.operationalWebhook).toEqual({
      url: 'https://ops.example.com/h',
      secrets: [r.operationalWebhookSecret],
    });
    const plain = await createEndpoint(store, s, T, { url: 'https://hooks.example.com/b' });
    expect(plain.operationalWebhookSecret).toBeUndefined();
  });

  it('R-RH-TRANSFORM: a transformation that is not JSONata is refused at save, on create and on change', async () => {
    const store = new FakeEndpointStore();
    const { s } = settings();
    const r = await refusalOf(
      createEndpoint(store, s, T, { url: 'https://h.example.com/x', transformation: '{ "a": ' }),
    );
    expect([r.kind, r.code, r.extra.path]).toEqual(['invalid', 'invalid_transformation', 'transformation']);
    expect(store.started).toEqual([]);
    const { endpoint } = await createEndpoint(store, s, T, {
      url: 'https://h.example.com/x',
      transformation: '$',
    });
    const c = await refusalOf(changeEndpoint(store, s, T, endpoint.endpointId, { transformation: '(' }));
    expect(c.code).toBe('invalid_transformation');
    // null removes it.
    const v = await changeEndpoint(store, s, T, endpoint.endpointId, { transformation: null });
    expect(v.config.transformation).toBeUndefined();
  });

  it('13.6: concurrent creates cannot pass the same count: at most HERALD_MAX_ENDPOINTS_PER_TENANT, the rest 409 endpoint_limit_reached', async () => {
    const store = new FakeEndpointStore();
    store.countDelay = 5;
    const { s } = settings({ maxEndpoints: 3 });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => createEndpoint(store, s, T, { url: `https://h.example.com/${i}` })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      const err = (r as PromiseRejectedResult).reason as Refusal;
      expect([err.kind, err.code, err.extra]).toEqual([
        'conflict',
        'endpoint_limit_reached',
        { maxEndpoints: 3 },
      ]);
    }
    expect(store.started).toHaveLength(3);
    // Another tenant has its own count.
    await createEndpoint(store, s, OTHER, { url: 'https://h.example.com/other' });
  });

  it("R-ISOLATION: another tenant's endpoint is not found for every read, change and action, and nothing reaches it", async () => {
    const store = new FakeEndpointStore();
    const { s } = settings();
    const { endpoint } = await createEndpoint(store, s, OTHER, { url: 'https://h.example.com/x' });
    const id = endpoint.endpointId;
    const attempts: Array<Promise<unknown>> = [
      getEndpoint(store, T, id),
      changeEndpoint(store, s, T, id, { description: 'mine now' }),
      deleteEndpoint(store, T, id),
      endpointAction(store, T, id, (x) => store.pause(x)),
      endpointAction(store, T, id, (x) => store.sendTest(x)),
      rotateSecret(store, s, T, id),
      verifyEndpoint(store, T, id),
      getEndpoint(store, T, 'ep_missing'),
    ];
    for (const p of attempts) {
      const r = await refusalOf(p);
      expect([r.kind, r.code]).toEqual(['not_found', 'endpoint_not_found']);
    }
    expect(store.calls).toEqual([]);
    expect(store.updates).toEqual([]);
  });

  it("13: a delete or an action racing a delete that already closed the endpoint's workflow answers not found, not an error", async () => {
    const store = new FakeEndpointStore();
    const { s } = settings();
    const { endpoint } = await createEndpoint(store, s, T, { url: 'https://h.example.com/x' });
    const id = endpoint.endpointId;
    // Both requests read the endpoint as live; the other one's delete has closed it since.
    store.closed.add(id);
    for (const p of [deleteEndpoint(store, T, id), endpointAction(store, T, id, (x) => store.pause(x))]) {
      const r = await refusalOf(p);
      expect([r.kind, r.code]).toEqual(['not_found', 'endpoint_not_found']);
    }
  });

  it('change: an operational webhook keeps its secrets when its URL changes; null removes it; the cached reads are told', async () => {
    const store = new FakeEndpointStore();
    const { s } = settings();
    const r = await createEndpoint(store, s, T, {
      url: 'https://h.example.com/x',
      operationalWebhook: { url: 'https://ops.example.com/1' },
    });
    const id = r.endpoint.endpointId;
    await changeEndpoint(store, s, T, id, { operationalWebhook: { url: 'https://ops.example.com/2' } });
    expect(store.updates[0]!.patch.operationalWebhook).toEqual({
      url: 'https://ops.example.com/2',
      secrets: [r.operationalWebhookSecret],
    });
    await changeEndpoint(store, s, T, id, { operationalWebhook: null });
    expect(store.updates[1]!.patch.operationalWebhook).toBeNull();
    expect(store.forgotten).toEqual([T, T]);
  });

  it('actions: delete, pause, resume, test and rotate run on the owned endpoint; a rotation keeps the old secret 24 h', async () => {
    const store = new FakeEndpointStore();
    const { s } = settings();
    const { endpoint } = await createEndpoint(store, s, T, { url: 'https://h.example.com/x' });
    const id = endpoint.endpointId;
    await endpointAction(store, T, id, (x) => store.pause(x));
    await endpointAction(store, T, id, (x) => store.resume(x));
    expect((await endpointAction(store, T, id, (x) => store.sendTest(x))).ok).toBe(true);
    const rotated = await rotateSecret(store, s, T, id);
    expect(ROTATION_GRACE_SECONDS).toBe(24 * 3600);
    await deleteEndpoint(store, T, id);
    expect(store.calls).toEqual([
      `pause ${id}`,
      `resume ${id}`,
      `test ${id}`,
      `rotate ${id} ${rotated.secret} ${24 * 3600}`,
      `remove ${id}`,
    ]);
    // Deleted: gone for reads.
    expect((await refusalOf(getEndpoint(store, T, id))).code).toBe('endpoint_not_found');
  });

  it('14.15: verify is refused (409) unless the endpoint uses challenge verification; with it, `verified` says the outcome', async () => {
    const store = new FakeEndpointStore();
    const { s } = settings();
    const plain = await createEndpoint(store, s, T, { url: 'https://h.example.com/x' });
    const r = await refusalOf(verifyEndpoint(store, T, plain.endpoint.endpointId));
    expect([r.kind, r.code, r.extra]).toEqual([
      'conflict',
      'verification_not_enabled',
      { path: 'verification' },
    ]);
    expect(store.calls).toEqual([]);
    const ch = await createEndpoint(store, s, T, {
      url: 'https://h.example.com/y',
      verification: 'challenge',
    });
    expect(ch.endpoint.verification?.status).toBe('pending');
    const v = await verifyEndpoint(store, T, ch.endpoint.endpointId);
    expect(v.verified).toBe(true);
  });
});

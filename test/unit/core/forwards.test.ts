import { describe, expect, it } from 'vitest';
import { retryForward, retryForwards, undeliveredForwards } from '../../../src/core/forwards.js';
import { Refusal } from '../../../src/core/refusal.js';
import type { PolicyResolver } from '../../../src/deliveries/policy-resolver.js';
import { forwardInput, retryForwardId } from '../../../src/inbound/forwards.js';
import { resolvePolicy as resolvePreset } from '../../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState, DeliveryStatus } from '../../../src/shared/delivery-types.js';
import type { Destination } from '../../../src/shared/source-types.js';
import type { DeliveryRef } from '../../../src/store/deliveries.js';
import type { ForwardFilter, ForwardStore } from '../../../src/store/forwards.js';

const T = 'tn_fwd';
const SRC = `src_${'a'.repeat(32)}`;
const fid = (n: number) => `fwd_${String(n).padStart(32, '0')}`;
const dest = (id: string, url: string): Destination => ({ destinationId: id, url, createdAt: 0 });
const DST = `dst_${'b'.repeat(24)}`;

const resolve: PolicyResolver = (preset, overrides, direction) => resolvePreset(preset, overrides, direction);

/** Forwards and sources as data; a start with an id already used is refused, as in Temporal. */
class FakeForwardStore implements ForwardStore {
  readonly refs = new Map<string, DeliveryRef & { tenantId: string }>();
  readonly states = new Map<string, DeliveryState>();
  readonly inputs = new Map<string, DeliveryInput>();
  readonly destinations = new Map<string, Destination & { tenantId: string }>();
  readonly started: DeliveryInput[] = [];

  add(id: string, status: DeliveryStatus, o: { tenantId?: string; url?: string } = {}) {
    const tenantId = o.tenantId ?? T;
    const input = forwardInput({
      forwardId: id,
      tenantId,
      destination: dest(DST, o.url ?? 'http://127.0.0.1:9/old'),
      policy: resolve('railhook', undefined, 'inbound'),
      request: {
        sourceId: SRC,
        requestId: `req_${id}`,
        receivedAt: '2026-01-01T00:00:00.000Z',
        headers: [['content-type', 'text/plain']],
        bodyEncoding: 'utf8',
      },
      body: 'hello',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    this.inputs.set(id, input);
    this.refs.set(id, {
      id,
      tenantId,
      endpointId: DST,
      eventType: SRC,
      eventId: `req_${id}`,
      status,
      preset: 'railhook',
      createdAt: '2026-01-01T00:00:00.000Z',
      startMs: 0,
      runId: `run_${id}`,
      running: false,
      closesAtRoundEnd: false,
    });
    this.states.set(id, {
      deliveryId: id,
      eventId: `req_${id}`,
      endpointId: DST,
      status,
      round: 1,
      attemptsInRound: 5,
      attemptBudget: 5,
      attempts: [1, 2, 3, 4, 5].map((attempt) => ({
        kind: 'attempt' as const,
        attempt,
        round: 1,
        startedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: '2026-01-01T00:00:00.001Z',
        latencyMs: 1,
        httpStatus: 500,
        code: 'http_500',
      })),
    });
  }
  async ownedForward(tenantId: string, id: string) {
    const r = this.refs.get(id);
    return r && r.tenantId === tenantId ? r : undefined;
  }
  async state(id: string) {
    return this.states.get(id);
  }
  async input(id: string) {
    return this.inputs.get(id);
  }
  async exists(id: string) {
    return this.refs.has(id) || this.started.some((s) => s.deliveryId === id);
  }
  async destination(tenantId: string, sourceId: string, destinationId: string) {
    const d = this.destinations.get(destinationId);
    return d && d.tenantId === tenantId && sourceId === SRC ? d : undefined;
  }
  async start(input: DeliveryInput) {
    if (await this.exists(input.deliveryId)) return false;
    this.started.push(input);
    return true;
  }
  async newest(tenantId: string, f: ForwardFilter, limit: number) {
    return [...this.refs.values()]
      .filter((r) => r.tenantId === tenantId && (!f.statuses || f.statuses.includes(r.status)))
      .filter((r) => !f.sourceId || r.eventType === f.sourceId)
      .slice(0, limit);
  }
}

const refusalOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Refusal);
  return err as Refusal;
};

describe('R-RH-INBOUND: retry of an undelivered forward (core/forwards)', () => {
  it('makes a new forward of the same request to the destination as configured now, from attempt 1 with a fresh lifetime', async () => {
    const store = new FakeForwardStore();
    store.add(fid(1), 'exhausted');
    store.destinations.set(DST, { ...dest(DST, 'http://127.0.0.1:9/fixed'), tenantId: T });
    const now = new Date('2026-02-01T00:00:00.000Z');
    const r = await retryForward(store, resolve, T, fid(1), now);
    expect(r).toEqual({ id: retryForwardId(fid(1)), retryOf: fid(1), destinationId: DST, status: 'pending' });
    const [input] = store.started;
    expect(input!.deliveryId).toBe(retryForwardId(fid(1)));
    expect(input!.target!.url).toBe('http://127.0.0.1:9/fixed');
    expect(input!.target!.forward).toMatchObject({
      requestId: `req_${fid(1)}`,
      retryOf: fid(1),
      sourceId: SRC,
    });
    expect(input!.event.body).toBe('hello');
    // R-RH-LIFETIME: the 24 h clock starts again at the retry.
    expect(input!.createdAt).toBe(now.toISOString());
  });

  it('a failed forward (gave up on a non-retryable answer) is undelivered too', async () => {
    const store = new FakeForwardStore();
    store.add(fid(2), 'failed');
    store.destinations.set(DST, { ...dest(DST, 'http://127.0.0.1:9/x'), tenantId: T });
    await expect(retryForward(store, resolve, T, fid(2))).resolves.toMatchObject({ retryOf: fid(2) });
  });

  it('retrying the same forward twice is refused already_retried and names the retry; nothing is sent twice', async () => {
    const store = new FakeForwardStore();
    store.add(fid(3), 'exhausted');
    store.destinations.set(DST, { ...dest(DST, 'http://127.0.0.1:9/x'), tenantId: T });
    await retryForward(store, resolve, T, fid(3));
    const r = await refusalOf(retryForward(store, resolve, T, fid(3)));
    expect([r.kind, r.code, r.extra]).toEqual([
      'conflict',
      'already_retried',
      { forwardId: retryForwardId(fid(3)) },
    ]);
    expect(store.started).toHaveLength(1);
  });

  it('a forward still pending or succeeded is not a dead letter (409)', async () => {
    const store = new FakeForwardStore();
    store.add(fid(4), 'succeeded');
    store.destinations.set(DST, { ...dest(DST, 'http://127.0.0.1:9/x'), tenantId: T });
    const r = await refusalOf(retryForward(store, resolve, T, fid(4)));
    expect([r.kind, r.code, r.detail]).toEqual(['conflict', 'not_a_dead_letter', 'It is succeeded.']);
  });

  it('a destination removed since is destination_gone; another tenant\u2019s forward is not found', async () => {
    const store = new FakeForwardStore();
    store.add(fid(5), 'exhausted');
    expect((await refusalOf(retryForward(store, resolve, T, fid(5)))).code).toBe('destination_gone');
    store.destinations.set(DST, { ...dest(DST, 'http://127.0.0.1:9/x'), tenantId: T });
    const r = await refusalOf(retryForward(store, resolve, 'tn_other', fid(5)));
    expect([r.kind, r.code]).toEqual(['not_found', 'forward_not_found']);
    expect(store.started).toHaveLength(0);
  });

  it('bulk: each id is tried once; refusals come back with their code', async () => {
    const store = new FakeForwardStore();
    store.add(fid(6), 'exhausted');
    store.add(fid(7), 'pending');
    store.destinations.set(DST, { ...dest(DST, 'http://127.0.0.1:9/x'), tenantId: T });
    const r = await retryForwards(store, resolve, T, [fid(6), fid(6), fid(7), fid(8)]);
    expect(r.retried).toEqual([{ id: retryForwardId(fid(6)), retryOf: fid(6) }]);
    expect(r.failed).toEqual([
      { id: fid(7), code: 'not_a_dead_letter' },
      { id: fid(8), code: 'forward_not_found' },
    ]);
  });

  it('the undelivered list shows attempts, last error and the retry already made', async () => {
    const store = new FakeForwardStore();
    store.add(fid(9), 'exhausted');
    store.add(fid(10), 'succeeded');
    store.destinations.set(DST, { ...dest(DST, 'http://127.0.0.1:9/x'), tenantId: T });
    expect((await undeliveredForwards(store, T, {}, 100)).map((r) => r.retriedAs)).toEqual([null]);
    await retryForward(store, resolve, T, fid(9));
    const [row] = await undeliveredForwards(store, T, {}, 100);
    expect(row).toMatchObject({
      status: 'exhausted',
      attemptCount: 5,
      lastError: 'http_500',
      retriedAs: retryForwardId(fid(9)),
    });
  });
});

import { describe, expect, it } from 'vitest';
import { publishEvent, type PublishSettings } from '../../../src/core/publish-event.js';
import { Refusal } from '../../../src/core/refusal.js';
import { createPolicyResolver } from '../../../src/deliveries/policy-resolver.js';
import { loadConfig } from '../../../src/config.js';
import { DT_HOLD_LIMIT } from '../../../src/health/index.js';
import { FakePublishStore } from './fake-store.js';

const settings: PublishSettings = {
  maxTargets: 2,
  defaultPreset: 'standard',
  urlCheck: { allowInsecureHosts: ['127.0.0.1'] },
  resolvePolicy: createPolicyResolver(loadConfig({})),
};
const T = 'tn_core1';
const publish = (store: FakePublishStore, o: Partial<Parameters<typeof publishEvent>[2]> = {}) =>
  publishEvent(store, settings, { tenantId: T, type: 'order.created', payload: { n: 1 }, ...o }, new Date(0));

describe('core/publish-event with a fake store', () => {
  it("R-IDEMP: the same event id publishes once and answers the first request's record", async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_a', 'standard');
    const first = await publish(store, { eventId: 'evt_1' });
    store.addEndpoint(T, 'ep_b', 'standard');
    const again = await publish(store, { eventId: 'evt_1', payload: { n: 2 } });
    expect(again).toEqual(first);
    expect([...store.deliveries.values()].map((d) => d.endpointId)).toEqual(['ep_a']);
    expect(JSON.parse([...store.deliveries.values()][0]!.event.body)).toMatchObject({ data: { n: 1 } });
  });

  it('R-RH-DEFER: only an ordered (fifo) endpoint\'s delivery carries the order marker; the others are as before', async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_plain', 'standard');
    store.addEndpoint(T, 'ep_fifo', 'standard').config.ordering = 'fifo';
    await publish(store, { eventId: 'evt_order' });
    const byEndpoint = new Map([...store.deliveries.values()].map((d) => [d.endpointId, d]));
    expect(byEndpoint.get('ep_fifo')!.ordered).toBe(true);
    expect('ordered' in byEndpoint.get('ep_plain')!).toBe(false);
  });

  it('R-SIGN: the envelope is built once: type, timestamp and data, the same on every delivery', async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_a', 'standard');
    store.addEndpoint(T, 'ep_b', 'bird');
    await publish(store, { eventId: 'evt_env' });
    const bodies = new Set([...store.deliveries.values()].map((d) => d.event.body));
    expect([...bodies]).toEqual([
      JSON.stringify({ type: 'order.created', timestamp: '1970-01-01T00:00:00.000Z', data: { n: 1 } }),
    ]);
  });

  it("R-FILTER: an endpoint gets only the event types it subscribes to; each delivery takes its endpoint's preset", async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_orders', 'bird', { eventTypes: ['order.*'] });
    store.addEndpoint(T, 'ep_invoices', 'smengo', { eventTypes: ['invoice.paid'] });
    store.addEndpoint('tn_other', 'ep_other', 'standard');
    const rec = await publish(store);
    expect(rec.deliveries.map((d) => d.endpointId)).toEqual(['ep_orders']);
    expect([...store.deliveries.values()][0]!.policy.preset).toBe('bird');
  });

  it('R-BIRD-HEALTH: a paused Bird endpoint is skipped with its reason, never given a delivery', async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_bird', 'bird', { health: { status: 'paused' } });
    const rec = await publish(store, { endpointIds: ['ep_bird'] });
    expect(rec).toMatchObject({
      deliveries: [],
      skipped: [{ endpointId: 'ep_bird', reason: 'endpoint_paused' }],
    });
  });

  it("HeraldClient targets: a named endpoint that is not the tenant's is skipped as not found", async () => {
    const store = new FakePublishStore();
    store.addEndpoint('tn_other', 'ep_theirs', 'standard');
    const rec = await publish(store, { endpointIds: ['ep_theirs'] });
    expect(rec).toMatchObject({
      deliveries: [],
      skipped: [{ endpointId: 'ep_theirs', reason: 'endpoint_not_found' }],
    });
  });

  it(`R-DT-HEALTH: a suspended Dong Tien endpoint holds new events up to ${DT_HOLD_LIMIT}; past that they are dead letters and the endpoint hears hold_full`, async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_dt', 'dongtien', { health: { status: 'suspended' } });
    store.held.set('ep_dt', DT_HOLD_LIMIT - 1);
    await publish(store, { eventId: 'evt_held' });
    const held = [...store.deliveries.values()].find((d) => d.event.id === 'evt_held')!;
    expect(held.deadLetterOnArrival).toBeUndefined();
    expect(store.holdFullReports).toEqual([]);

    store.held.set('ep_dt', DT_HOLD_LIMIT);
    await publish(store, { eventId: 'evt_over' });
    const over = [...store.deliveries.values()].find((d) => d.event.id === 'evt_over')!;
    expect(over.deadLetterOnArrival).toBe(`hold_overflow_over_${DT_HOLD_LIMIT}`);
    expect(store.holdFullReports).toEqual(['ep_dt']);
    // A repeat of the overflowing publish tells the endpoint again (it may not have heard).
    await publish(store, { eventId: 'evt_over' });
    expect(store.holdFullReports).toEqual(['ep_dt', 'ep_dt']);
  });

  it('Cost: an active endpoint costs no held-count read', async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_dt', 'dongtien');
    store.addEndpoint(T, 'ep_std', 'standard');
    await publish(store);
    expect(store.heldCountReads).toBe(0);
  });

  it('13.6: more one-off targets than allowed is refused too_many_targets, and nothing starts', async () => {
    const store = new FakePublishStore();
    const t = { url: 'http://127.0.0.1:9/x', secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] };
    const err = await publish(store, { targets: [t, t, t] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Refusal);
    expect(err).toMatchObject({ kind: 'invalid', code: 'too_many_targets' });
    expect(store.records.size + store.deliveries.size).toBe(0);
  });
});

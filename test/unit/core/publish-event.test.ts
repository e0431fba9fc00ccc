import { describe, expect, it } from 'vitest';
import { publishEvent, type PublishSettings } from '../../../src/core/publish-event.js';
import { Refusal } from '../../../src/core/refusal.js';
import { createPolicyResolver } from '../../../src/deliveries/policy-resolver.js';
import { loadConfig } from '../../../src/config.js';
import { DT_HOLD_LIMIT } from '../../../src/health/index.js';
import { eventWorkflowId } from '../../../src/shared/ids.js';
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

  it('16 (4) R-IDEMP: a named event to two endpoints has no record; its first delivery holds the id, and a repeat that sees a third endpoint answers the first publish and starts nothing', async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_a', 'standard');
    store.addEndpoint(T, 'ep_b', 'standard');
    const first = await publish(store, { eventId: 'evt_held' });
    expect(store.records.size).toBe(0);
    expect(first.deliveries.map((d) => d.id)).toEqual([eventWorkflowId(T, 'evt_held'), expect.stringMatching(/^dlv_/)]);
    const holder = store.deliveries.get(eventWorkflowId(T, 'evt_held'))!;
    expect(holder).toMatchObject({ endpointId: 'ep_a', eventRecord: true });
    expect(holder.siblings!.map((d) => d.endpointId)).toEqual(['ep_b']);

    store.addEndpoint(T, 'ep_c', 'standard');
    const again = await publish(store, { eventId: 'evt_held', payload: { n: 2 } });
    expect(again).toEqual(first);
    expect([...store.deliveries.values()].map((d) => d.endpointId)).toEqual(['ep_a', 'ep_b']);
  });

  it('16 (4) R-IDEMP: a repeat finishes a fan-out the first publish left half done after its first delivery started', async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_a', 'standard');
    store.addEndpoint(T, 'ep_b', 'standard');
    const startDeliveries = store.startDeliveries.bind(store);
    store.startDeliveries = async () => {
      throw new Error('Temporal unavailable');
    };
    await expect(publish(store, { eventId: 'evt_half' })).rejects.toThrow('Temporal unavailable');
    expect([...store.deliveries.values()].map((d) => d.endpointId)).toEqual(['ep_a']);
    store.startDeliveries = startDeliveries;
    const again = await publish(store, { eventId: 'evt_half' });
    expect(again.deliveries.map((d) => d.endpointId)).toEqual(['ep_a', 'ep_b']);
    const b = [...store.deliveries.values()].find((d) => d.endpointId === 'ep_b')!;
    expect(b.deliveryId).toBe(again.deliveries[1]!.id);
    expect(JSON.parse(b.event.body)).toMatchObject({ data: { n: 1 } });
  });

  it('16 (4): a named event keeps its record workflow when an endpoint was skipped or one of its deliveries is ordered', async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_a', 'standard');
    store.addEndpoint(T, 'ep_paused', 'bird', { health: { status: 'paused' } });
    await publish(store, { eventId: 'evt_skip' });
    store.endpoints.delete('ep_paused');
    store.addEndpoint(T, 'ep_fifo', 'standard').config.ordering = 'fifo';
    await publish(store, { eventId: 'evt_fifo' });
    expect([...store.records.keys()]).toEqual([`${T}/evt_skip`, `${T}/evt_fifo`]);
    expect([...store.deliveries.keys()].some((id) => id.startsWith('ev_'))).toBe(false);
  });

  it('16 (4) R-IDEMP: a repeat is refused whichever kind holds the id: a record where the repeat would use a delivery, and the reverse', async () => {
    const store = new FakePublishStore();
    store.addEndpoint(T, 'ep_a', 'standard');
    const paused = store.addEndpoint(T, 'ep_p', 'bird', { health: { status: 'paused' } });
    const byRecord = await publish(store, { eventId: 'evt_rec' });
    paused.health = { ...paused.health, status: 'active' };
    const byDelivery = await publish(store, { eventId: 'evt_dlv' });
    paused.health = { ...paused.health, status: 'paused' };
    const sent = store.deliveries.size;
    expect(await publish(store, { eventId: 'evt_dlv', payload: { n: 2 } })).toEqual(byDelivery);
    paused.health = { ...paused.health, status: 'active' };
    expect(await publish(store, { eventId: 'evt_rec', payload: { n: 2 } })).toEqual(byRecord);
    expect(store.deliveries.size).toBe(sent);
    expect(byRecord.skipped).toEqual([{ endpointId: 'ep_p', reason: 'endpoint_paused' }]);
    expect(byDelivery.deliveries.map((d) => d.endpointId)).toEqual(['ep_a', 'ep_p']);
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

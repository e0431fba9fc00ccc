// Issue 16 (4): an event Herald names, that reached a delivery and skipped no endpoint, has no
// record workflow: its deliveries are its record. An event its publisher named has none
// either: its first delivery holds the event id (workflow id `ev_<tenant>_<event id>`,
// started once). Events with nothing else to be read back from (no endpoint matched, one was
// skipped) keep the record. Every read of events answers the same for all. Dev server, real
// receivers on loopback.
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { eventWorkflowId } from '../../src/shared/ids.js';
import { jsonOf, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

type Published = {
  eventId: string;
  deliveries: Array<{ id: string; endpointId: string }>;
  skipped: Array<{ endpointId: string; reason: string }>;
};
type EventRow = { eventId: string; type: string; createdAt: string };
type Event = Published & { type: string; occurredAt: string; payload: unknown };
type Delivery = { id: string; status: string };

describe('16 (4): the event record, one workflow or none (dev server)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  let base = '';
  const receiver = new Receiver();
  const statusFor = new Map<string, number>();

  const endpoint = async (t: TenantSession, path: string, preset = 'standard', policy?: object) =>
    (
      await jsonOf<{ endpoint: { endpointId: string } }>(
        t.call('POST', '/v1/endpoints', {
          url: `${base}${path}`,
          preset,
          eventTypes: ['order.*'],
          ...(policy ? { policy } : {}),
        }),
        201,
      )
    ).endpoint.endpointId;
  const publish = (t: TenantSession, body: object, headers?: Record<string, string>) =>
    jsonOf<Published>(t.call('POST', '/v1/events', { type: 'order.created', ...body }, headers), 202);
  /** The type of the workflow holding the event id, if any. */
  const holderOf = async (t: TenantSession, eventId: string) =>
    w.client.workflow
      .getHandle(eventWorkflowId(t.tenantId, eventId))
      .describe()
      .then(
        (d) => d.type,
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw err;
        },
      );
  const recordExists = async (t: TenantSession, eventId: string) => (await holderOf(t, eventId)) === 'eventWorkflow';
  const events = async (t: TenantSession, q = '') =>
    (await jsonOf<{ data: EventRow[] }>(t.call('GET', `/v1/events${q}`), 200)).data;
  const status = async (t: TenantSession, id: string) =>
    (await jsonOf<Delivery>(t.call('GET', `/v1/deliveries/${id}`), 200)).status;
  const settled = (t: TenantSession, id: string, want = 'succeeded') =>
    expect.poll(() => status(t, id), { timeout: 60_000, interval: 300 }).toBe(want);

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
    receiver.respondWith((req, _i, res) => {
      const s = statusFor.get(req.path) ?? 200;
      res.writeHead(s, { 'content-type': 'text/plain' }).end(s >= 300 ? 'boom' : 'ok');
    });
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('16 (4) R-LOG: an event Herald names, sent to two endpoints, starts no record workflow; the events list shows it once and its read-back lists both deliveries and skipped nothing', async () => {
    const t = await newTenant(app);
    const a = await endpoint(t, '/a');
    const b = await endpoint(t, '/b');
    const p = await publish(t, { payload: { n: 'no-record' } });
    expect(p.deliveries.map((d) => d.endpointId).sort()).toEqual([a, b].sort());
    expect(p.skipped).toEqual([]);
    for (const d of p.deliveries) await settled(t, d.id);

    expect(await recordExists(t, p.eventId)).toBe(false);
    await expect
      .poll(async () => (await events(t)).map((e) => [e.eventId, e.type]), { timeout: 15_000 })
      .toEqual([[p.eventId, 'order.created']]);
    expect(await events(t, '?type=order.created')).toHaveLength(1);
    expect(await events(t, '?type=order.other')).toEqual([]);

    const ev = await jsonOf<Event>(t.call('GET', `/v1/events/${p.eventId}`), 200);
    expect(ev).toMatchObject({ eventId: p.eventId, type: 'order.created', payload: { n: 'no-record' } });
    expect(ev.skipped).toEqual([]);
    expect(ev.deliveries.map((d) => d.id).sort()).toEqual(p.deliveries.map((d) => d.id).sort());
    // Both receivers got the event once: the deliveries are all there is of it.
    expect(receiver.requests.filter((r) => r.path === '/a')).toHaveLength(1);
    expect(receiver.requests.filter((r) => r.path === '/b')).toHaveLength(1);
  });

  it('16 (4) R-IDEMP: an event the publisher names has no record workflow: its first delivery holds the id; a repeat after a new endpoint was added, and after a replay, answers the first publish and sends nothing to the new endpoint', async () => {
    const t = await newTenant(app);
    const a = await endpoint(t, '/idem-a');
    const first = await publish(t, { id: 'ord-42', payload: { n: 1 } });
    expect(first.deliveries).toEqual([{ id: eventWorkflowId(t.tenantId, 'ord-42'), endpointId: a }]);
    expect(await holderOf(t, 'ord-42')).toBe('deliveryWorkflow');
    const held = first.deliveries[0]!.id;
    await settled(t, held);

    await endpoint(t, '/idem-b');
    const again = await publish(t, { id: 'ord-42', payload: { n: 2 } });
    expect(again.deliveries).toEqual(first.deliveries);
    // By the Idempotency-Key header too.
    const byKey = await publish(t, { payload: { n: 3 } }, { 'idempotency-key': 'ord-42' });
    expect(byKey.deliveries).toEqual(first.deliveries);
    // A replay is a new run of the same id; it keeps the event's record.
    await jsonOf(t.call('POST', `/v1/replay/deliveries/${held}`), 202);
    await expect.poll(() => receiver.requests.filter((r) => r.path === '/idem-a').length, { timeout: 30_000 }).toBe(2);
    await settled(t, held);
    expect((await publish(t, { id: 'ord-42', payload: { n: 4 } })).deliveries).toEqual(first.deliveries);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.requests.filter((r) => r.path === '/idem-b')).toEqual([]);
    expect(receiver.requests.filter((r) => r.path === '/idem-a')).toHaveLength(2);
    expect(receiver.requests.filter((r) => r.path === '/idem-a').map((r) => JSON.parse(r.body).data)).toEqual([
      { n: 1 },
      { n: 1 },
    ]);

    await expect
      .poll(async () => (await events(t)).map((e) => e.eventId), { timeout: 15_000 })
      .toEqual(['ord-42']);
    const ev = await jsonOf<Event>(t.call('GET', '/v1/events/ord-42'), 200);
    expect(ev).toMatchObject({ eventId: 'ord-42', payload: { n: 1 }, deliveries: first.deliveries, skipped: [] });
  });

  it('16 (4) R-IDEMP: a named event to three endpoints: the first holds the id and lists the others; the read-back lists all three', async () => {
    const t = await newTenant(app);
    const eps = [await endpoint(t, '/fan-1'), await endpoint(t, '/fan-2'), await endpoint(t, '/fan-3')];
    const first = await publish(t, { id: 'fan.1', payload: { n: 'fan' } });
    expect(first.deliveries.map((d) => d.endpointId).sort()).toEqual([...eps].sort());
    expect(first.deliveries.filter((d) => d.id === eventWorkflowId(t.tenantId, 'fan.1'))).toHaveLength(1);
    for (const d of first.deliveries) await settled(t, d.id);
    const ev = await jsonOf<Event>(t.call('GET', '/v1/events/fan.1'), 200);
    expect(ev.deliveries).toEqual(first.deliveries);
    expect((await publish(t, { id: 'fan.1', payload: { n: 'again' } })).deliveries).toEqual(first.deliveries);
    for (const p of ['/fan-1', '/fan-2', '/fan-3'])
      expect(receiver.requests.filter((r) => r.path === p)).toHaveLength(1);
  });

  it('16 (4): an event that matched no endpoint, and one that skipped a paused endpoint, keep their record and read back what it knew', async () => {
    const t = await newTenant(app);
    const none = await publish(t, { type: 'invoice.paid', payload: {} });
    expect(none.deliveries).toEqual([]);
    expect(await recordExists(t, none.eventId)).toBe(true);

    const live = await endpoint(t, '/live');
    const paused = await endpoint(t, '/paused', 'smengo');
    await jsonOf(t.call('POST', `/v1/endpoints/${paused}/pause`), 200);
    const some = await publish(t, { payload: { n: 'skip' } });
    expect(some.deliveries.map((d) => d.endpointId)).toEqual([live]);
    expect(some.skipped).toEqual([{ endpointId: paused, reason: 'endpoint_paused' }]);
    expect(await recordExists(t, some.eventId)).toBe(true);
    const ev = await jsonOf<Event>(t.call('GET', `/v1/events/${some.eventId}`), 200);
    expect(ev.skipped).toEqual(some.skipped);
    await expect
      .poll(async () => (await events(t)).map((e) => e.eventId).sort(), { timeout: 15_000 })
      .toEqual([none.eventId, some.eventId].sort());
  });

  it('16 (4) R-LOG: the list is newest first across both kinds, pages by limit, and a reopened delivery that stands as its event’s record shows the event once', async () => {
    const t = await newTenant(app);
    statusFor.set('/order', 500);
    await endpoint(t, '/order', 'railhook', { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 });
    const e1 = await publish(t, { payload: { n: 1 } });
    const e2 = await publish(t, { id: 'named-2', payload: { n: 2 } });
    const e3 = await publish(t, { payload: { n: 3 } });
    expect(await recordExists(t, e1.eventId)).toBe(false);
    const id = e1.deliveries[0]!.id;
    await settled(t, id, 'exhausted');
    statusFor.set('/order', 200);
    await jsonOf(t.call('POST', `/v1/dead-letters/${id}/retry`), 202);
    await settled(t, id);

    const want = [e3.eventId, e2.eventId, e1.eventId];
    await expect.poll(async () => (await events(t)).map((e) => e.eventId), { timeout: 15_000 }).toEqual(want);
    expect((await events(t, '?limit=2')).map((e) => e.eventId)).toEqual(want.slice(0, 2));
    const rows = await events(t);
    expect(rows.map((r) => Date.parse(r.createdAt))).toEqual(
      [...rows.map((r) => Date.parse(r.createdAt))].sort((x, y) => y - x),
    );
  });
});

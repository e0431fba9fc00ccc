import { describe, expect, it } from 'vitest';
import { REPLAY_MAX_AGE_MS, groupFailures, replayDelivery } from '../../../src/core/replay.js';
import { initialHealth } from '../../../src/health/common.js';
import type { DeliveryState } from '../../../src/shared/delivery-types.js';
import type { EndpointView } from '../../../src/shared/endpoint-types.js';
import type { DeliveryRef } from '../../../src/store/deliveries.js';
import type { DeliveryReplay, ReplayStore } from '../../../src/store/replay.js';

const T = 'tn_rp';
const ref = (id: string, preset: string, o: Partial<DeliveryRef> = {}): DeliveryRef => ({
  id,
  endpointId: 'ep_1',
  eventType: 'order.created',
  eventId: `evt_${id}`,
  status: 'exhausted',
  preset,
  createdAt: new Date(1000).toISOString(),
  startMs: 1000,
  runId: `run_${id}`,
  running: true,
  closesAtRoundEnd: false,
  ...o,
});
const state = (
  id: string,
  status: DeliveryState['status'],
  o: Partial<DeliveryState> = {},
): DeliveryState => ({
  deliveryId: id,
  eventId: `evt_${id}`,
  endpointId: 'ep_1',
  status,
  round: 1,
  attemptsInRound: 1,
  attemptBudget: 8,
  attempts: [],
  ...o,
});

/** Deliveries and endpoints as data; a replay of a finished delivery opens a new round. */
class FakeReplayStore implements ReplayStore {
  refs: DeliveryRef[] = [];
  states = new Map<string, DeliveryState>();
  endpoints = new Map<string, EndpointView>();
  replays: Array<{ id: string; mode: string }> = [];
  async openDeliveries(_t: string, statuses: readonly string[], presets: readonly string[]) {
    return this.refs.filter((r) => statuses.includes(r.status) && presets.includes(r.preset!));
  }
  async deliveryState(r: DeliveryRef) {
    return this.states.get(r.id);
  }
  async endpoint(_t: string, id: string) {
    return this.endpoints.get(id);
  }
  async replayDelivery(r: DeliveryRef, mode: 'round' | 'single'): Promise<DeliveryReplay> {
    const id = r.id;
    const s = this.states.get(id)!;
    if (s.status === 'pending' || s.status === 'processing') return { ok: false, reason: 'in_progress' };
    this.replays.push({ id, mode });
    return { ok: true, state: { ...s, status: 'pending', round: s.round + 1 } };
  }
}

const endpoint = (status: EndpointView['health']['status']): EndpointView => ({
  endpointId: 'ep_1',
  tenantId: T,
  config: { url: 'https://example.test', preset: 'dongtien' },
  health: { ...initialHealth(), status },
  secretCount: 1,
  createdAt: 0,
  deleted: false,
});

describe('core/replay with a fake store', () => {
  it('R-DT-REPLAY: failures group as ready (finished), waiting (retry scheduled) and blocked (endpoint paused)', async () => {
    const store = new FakeReplayStore();
    store.endpoints.set('ep_1', endpoint('active'));
    store.refs = [
      ref('dlv_done', 'dongtien'),
      ref('dlv_retry', 'dongtien', { status: 'pending' }),
      ref('dlv_new', 'dongtien', { status: 'pending' }),
    ];
    store.states.set('dlv_done', state('dlv_done', 'exhausted'));
    store.states.set(
      'dlv_retry',
      state('dlv_retry', 'pending', {
        nextAttemptAt: new Date(5000).toISOString(),
        attempts: [
          {
            kind: 'attempt',
            attempt: 1,
            round: 1,
            startedAt: '',
            finishedAt: '',
            latencyMs: 1,
            code: 'http_500',
          },
        ],
      }),
    );
    // Never attempted yet: no candidate.
    store.states.set('dlv_new', state('dlv_new', 'pending', { nextAttemptAt: new Date(5000).toISOString() }));
    const g = await groupFailures(store, T, undefined, 2000);
    expect([g.ready.map((x) => x.ref.id), g.waiting.map((x) => x.ref.id), g.blocked]).toEqual([
      ['dlv_done'],
      ['dlv_retry'],
      [],
    ]);

    store.endpoints.set('ep_1', endpoint('paused'));
    const paused = await groupFailures(store, T, undefined, 2000);
    expect(paused.blocked.map((x) => [x.ref.id, x.reason])).toEqual([
      ['dlv_done', 'endpoint_paused'],
      ['dlv_retry', 'endpoint_paused'],
    ]);
  });

  it("14.6 R-BIRD-REPLAY: Bird's deliveries are no candidates of a delivery replay (window only)", async () => {
    const store = new FakeReplayStore();
    store.endpoints.set('ep_1', endpoint('active'));
    store.refs = [ref('dlv_bird', 'bird')];
    store.states.set('dlv_bird', state('dlv_bird', 'exhausted'));
    expect((await groupFailures(store, T, undefined, 2000)).ready).toEqual([]);
    const err = await replayDelivery(store, store.refs[0]!, 2000).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'delivery_replay_not_offered' });
    expect(store.replays).toEqual([]);
  });

  it('R-DT-REPLAY: a finished delivery replays as a new round; a pending one is delivery_in_progress', async () => {
    const store = new FakeReplayStore();
    store.states.set('dlv_a', state('dlv_a', 'exhausted'));
    store.states.set('dlv_p', state('dlv_p', 'pending'));
    expect(await replayDelivery(store, ref('dlv_a', 'dongtien'), 2000)).toMatchObject({
      status: 'pending',
      round: 2,
    });
    expect(store.replays).toEqual([{ id: 'dlv_a', mode: 'round' }]);
    expect(
      await replayDelivery(store, ref('dlv_p', 'dongtien'), 2000).catch((e: unknown) => e),
    ).toMatchObject({
      kind: 'conflict',
      code: 'delivery_in_progress',
    });
  });

  it('14.11 R-DT-REPLAY: older than 90 days is 410 replay_window_expired, naming the preset’s window', async () => {
    const store = new FakeReplayStore();
    store.states.set('dlv_old', state('dlv_old', 'exhausted'));
    const err = await replayDelivery(store, ref('dlv_old', 'dongtien'), 1000 + REPLAY_MAX_AGE_MS + 1).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ kind: 'gone', code: 'replay_window_expired' });
    expect((err as { detail: string }).detail).toContain('90 days');
    expect(store.replays).toEqual([]);
  });

  it('16 R-DT-REPLAY: a Dong Tien delivery closed at its round end replays until 90 days after its event, whenever its round ended', async () => {
    const DAY = 86_400_000;
    const store = new FakeReplayStore();
    store.states.set('dlv_c', state('dlv_c', 'succeeded'));
    // Created at 1000, round ended (the run closed) on day 80.
    const closed = ref('dlv_c', 'dongtien', {
      status: 'succeeded',
      running: false,
      closesAtRoundEnd: true,
      closedAtMs: 1000 + 80 * DAY,
    });
    expect(await replayDelivery(store, closed, 1000 + 89 * DAY)).toMatchObject({ round: 2 });
    const err = await replayDelivery(store, closed, 1000 + 90 * DAY + 1).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'gone', code: 'replay_window_expired' });
    expect((err as { detail: string }).detail).toMatch(/90 days for replay, counted from the event/);
    expect(store.replays).toEqual([{ id: 'dlv_c', mode: 'round' }]);
  });

  it('16 R-LOG: a standard delivery closed at its round end replays for 30 days from that end; the preview leaves out expired ones', async () => {
    const DAY = 86_400_000;
    const store = new FakeReplayStore();
    store.endpoints.set('ep_1', endpoint('active'));
    const now = 1000 + 60 * DAY;
    store.refs = [
      ref('dlv_in', 'standard', { running: false, closesAtRoundEnd: true, closedAtMs: now - 29 * DAY }),
      ref('dlv_out', 'standard', { running: false, closesAtRoundEnd: true, closedAtMs: now - 31 * DAY }),
      // Started before issue 16 and closed: its window is what closed it.
      ref('dlv_old', 'standard', { running: false, closesAtRoundEnd: false, closedAtMs: now - DAY }),
    ];
    for (const r of store.refs) store.states.set(r.id, state(r.id, 'exhausted'));
    const g = await groupFailures(store, T, undefined, now);
    expect(g.ready.map((x) => x.ref.id)).toEqual(['dlv_in']);
    const err = await replayDelivery(store, store.refs[1]!, now).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'gone', code: 'replay_window_expired' });
    expect((err as { detail: string }).detail).toMatch(
      /30 days for replay, counted from the end of its latest round/,
    );
    expect(await replayDelivery(store, store.refs[2]!, now).catch((e: unknown) => e)).toMatchObject({
      code: 'replay_window_expired',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { retryDeadLetter, retryDeadLetters } from '../../../src/core/dead-letters.js';
import { Refusal } from '../../../src/core/refusal.js';
import type { DeliveryState } from '../../../src/shared/delivery-types.js';
import type { DeadLetterRetry, DeadLetterStore } from '../../../src/store/dead-letters.js';
import { reopenable, type DeliveryRef } from '../../../src/store/deliveries.js';

const T = 'tn_dl';
const NOW = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 86_400_000;

/** Deliveries as data: a dead letter's workflow takes 3 more attempts when retried. */
class FakeDeadLetterStore implements DeadLetterStore {
  readonly refs = new Map<string, DeliveryRef & { tenantId: string }>();
  readonly states = new Map<string, DeliveryState>();
  readonly retried: string[] = [];

  add(
    id: string,
    preset: string,
    o: {
      tenantId?: string;
      open?: boolean;
      status?: DeliveryState['status'];
      /** Issue 16: closed at its round end this long before NOW (ms). */
      closedAgoMs?: number;
    } = {},
  ) {
    this.refs.set(id, {
      id,
      tenantId: o.tenantId ?? T,
      endpointId: 'ep_1',
      eventType: 'order.created',
      eventId: `evt_${id}`,
      status: o.status ?? 'exhausted',
      preset,
      createdAt: '2026-01-01T00:00:00.000Z',
      startMs: 0,
      runId: `run_${id}`,
      // open: a run still reachable (running, or closed at its round end within its window);
      // a run started before issue 16 that closed had its window.
      ...(o.closedAgoMs !== undefined
        ? { running: false, closesAtRoundEnd: true, closedAtMs: NOW - o.closedAgoMs }
        : {
            running: o.open ?? true,
            closesAtRoundEnd: false,
            ...(o.open === false ? { closedAtMs: 0 } : {}),
          }),
    });
    this.states.set(id, {
      deliveryId: id,
      eventId: `evt_${id}`,
      endpointId: 'ep_1',
      status: o.status ?? 'exhausted',
      round: 1,
      attemptsInRound: 8,
      attemptBudget: 8,
      attempts: [],
    });
  }
  async ownedDelivery(tenantId: string, id: string) {
    const r = this.refs.get(id);
    return r && r.tenantId === tenantId ? r : undefined;
  }
  async retryDeadLetter(ref: DeliveryRef): Promise<DeadLetterRetry> {
    const id = ref.id;
    const s = this.states.get(id)!;
    if (s.status !== 'exhausted') return { ok: false, reason: 'not_a_dead_letter' };
    this.retried.push(id);
    const state = { ...s, status: 'pending' as const, attemptBudget: s.attemptBudget + 3 };
    this.states.set(id, state);
    return { ok: true, state };
  }
  async retryableDeadLetters(tenantId: string, presets: readonly string[], cap: number, nowMs: number) {
    return [...this.refs.values()]
      .filter(
        (r) =>
          r.tenantId === tenantId &&
          reopenable(r, nowMs) &&
          r.status === 'exhausted' &&
          presets.includes(r.preset!),
      )
      .map((r) => r.id)
      .slice(0, cap);
  }
}

const refusalOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Refusal,
  );

describe('core/dead-letters with a fake store', () => {
  it('R-RH-DLQ: a retried dead letter goes back to pending with 3 more attempts, same id', async () => {
    const store = new FakeDeadLetterStore();
    store.add('dlv_1', 'railhook');
    const v = await retryDeadLetter(store, T, 'dlv_1');
    expect(v).toMatchObject({ id: 'dlv_1', status: 'pending', attemptBudget: 11 });
  });

  it("R-API isolation: another tenant's dead letter is not found, and nothing is retried", async () => {
    const store = new FakeDeadLetterStore();
    store.add('dlv_x', 'railhook', { tenantId: 'tn_other' });
    expect(await refusalOf(retryDeadLetter(store, T, 'dlv_x'))).toMatchObject({
      kind: 'not_found',
      code: 'delivery_not_found',
    });
    expect(store.retried).toEqual([]);
  });

  it('14.6 R-BIRD-REPLAY: Bird keeps no dead-letter list: 409 dead_letters_not_offered pointing at window replay', async () => {
    const store = new FakeDeadLetterStore();
    store.add('dlv_b', 'bird');
    const r = await refusalOf(retryDeadLetter(store, T, 'dlv_b'));
    expect(r).toMatchObject({ kind: 'conflict', code: 'dead_letters_not_offered' });
    expect(r!.extra).toMatchObject({ replay: { href: '/v1/replay/window', body: { endpointId: 'ep_1' } } });
  });

  it('R-SMENGO-LOG: Smengo offers no manual retry: not_retryable, pointing at the events API', async () => {
    const store = new FakeDeadLetterStore();
    store.add('dlv_s', 'smengo');
    const r = await refusalOf(retryDeadLetter(store, T, 'dlv_s'));
    expect(r).toMatchObject({ kind: 'conflict', code: 'not_retryable' });
    expect(r!.detail).toContain('events API');
  });

  it('R-RH-DLQ: a closed delivery (retention window over) is not_retryable; a pending one is not_a_dead_letter', async () => {
    const store = new FakeDeadLetterStore();
    store.add('dlv_closed', 'railhook', { open: false });
    store.add('dlv_pending', 'railhook', { status: 'pending' });
    expect(await refusalOf(retryDeadLetter(store, T, 'dlv_closed'))).toMatchObject({ code: 'not_retryable' });
    expect(await refusalOf(retryDeadLetter(store, T, 'dlv_pending'))).toMatchObject({
      code: 'not_a_dead_letter',
    });
  });

  it('R-RH-DLQ bulk: {all: true} retries every open dead letter whose preset offers a retry; each refusal keeps its code', async () => {
    const store = new FakeDeadLetterStore();
    store.add('dlv_a', 'railhook');
    store.add('dlv_b', 'standard');
    store.add('dlv_bird', 'bird');
    store.add('dlv_closed', 'railhook', { open: false });
    expect(await retryDeadLetters(store, T, { all: true })).toEqual({
      retried: ['dlv_a', 'dlv_b'],
      failed: [],
    });
    const again = await retryDeadLetters(store, T, { ids: ['dlv_a', 'dlv_bird', 'dlv_nope'] });
    expect(again).toEqual({
      retried: [],
      failed: [
        { id: 'dlv_a', code: 'not_a_dead_letter' },
        { id: 'dlv_bird', code: 'dead_letters_not_offered' },
        { id: 'dlv_nope', code: 'delivery_not_found' },
      ],
    });
  });

  it('16 R-RH-DLQ: a dead letter closed at its round end is retried within 30 days of that end, refused after', async () => {
    const store = new FakeDeadLetterStore();
    store.add('dlv_29d', 'railhook', { closedAgoMs: 29 * DAY });
    store.add('dlv_31d', 'railhook', { closedAgoMs: 31 * DAY });
    expect(await retryDeadLetter(store, T, 'dlv_29d', NOW)).toMatchObject({
      status: 'pending',
      attemptBudget: 11,
    });
    expect(await refusalOf(retryDeadLetter(store, T, 'dlv_31d', NOW))).toMatchObject({
      code: 'not_retryable',
    });
    expect(store.retried).toEqual(['dlv_29d']);
    // Bulk {all: true} takes only the ones still in their window.
    const bulk = new FakeDeadLetterStore();
    bulk.add('dlv_in', 'standard', { closedAgoMs: 29 * DAY });
    bulk.add('dlv_out', 'standard', { closedAgoMs: 31 * DAY });
    expect(await retryDeadLetters(bulk, T, { all: true }, NOW)).toEqual({ retried: ['dlv_in'], failed: [] });
  });
});

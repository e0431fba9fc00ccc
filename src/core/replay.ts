import { presetsOffering, recoveryOf } from '../policy/policy.js';
import { DT_REPLAY_DAYS } from '../policy/presets.js';
import type { DeliveryState } from '../shared/delivery-types.js';
import type { EndpointView } from '../shared/endpoint-types.js';
import type { ReplayMode } from '../shared/messages.js';
import { reopenable, type DeliveryRef } from '../store/deliveries.js';
import type { ReplayStore } from '../store/replay.js';
import { boundedMap } from '../shared/bounded-map.js';
import { refuse } from './refusal.js';

/** R-DT-REPLAY: events older than this cannot be replayed. */
export const REPLAY_MAX_AGE_MS = DT_REPLAY_DAYS * 86_400_000;
/** Deliveries one preview (or bulk replay) looks at, per status group. */
export const PREVIEW_SCAN_LIMIT = 1000;

/** Endpoint states that refuse a replay until the tenant acts: re-enable (or resume) first. */
const BLOCKING = new Set(['suspended', 'disabled', 'paused']);

export interface Grouped {
  ref: DeliveryRef;
  state: DeliveryState;
  reason?: string;
}

/**
 * R-DT-REPLAY: where one failed delivery stands before a bulk replay. `ready`: finished,
 * its endpoint takes sends; `waiting`: an automatic retry is still scheduled after a failed
 * attempt; `blocked`: its endpoint is paused, suspended, disabled or gone. Anything else
 * (never failed, delivered) is no candidate.
 */
export function replayGroupOf(
  ref: DeliveryRef,
  state: DeliveryState,
  endpoint: EndpointView | undefined | 'none',
): { group: 'ready' | 'waiting' } | { group: 'blocked'; reason: string } | undefined {
  const finished = state.status === 'exhausted' || state.status === 'failed';
  const retrying =
    state.status === 'pending' &&
    state.nextAttemptAt !== undefined &&
    state.attempts.some((a) => a.kind === 'attempt' && a.code !== undefined);
  if (!finished && !retrying) return undefined;
  if (endpoint !== 'none') {
    const status = endpoint?.health.status;
    if (!endpoint || (status && BLOCKING.has(status)))
      return { group: 'blocked', reason: endpoint ? `endpoint_${status}` : 'endpoint_deleted' };
  }
  return { group: finished ? 'ready' : 'waiting' };
}

/** Failed deliveries grouped as R-DT-REPLAY shows them before a bulk replay, newest first. */
export async function groupFailures(
  store: ReplayStore,
  tenantId: string,
  endpointId?: string,
  nowMs: number = Date.now(),
) {
  // Only deliveries whose preset replays one delivery at a time (not Bird's window).
  const presets = presetsOffering((o) => o.deliveryReplay !== 'none');
  const [failedRefs, pendingRefs] = await Promise.all([
    store.openDeliveries(tenantId, ['exhausted', 'failed'], presets, endpointId, PREVIEW_SCAN_LIMIT),
    store.openDeliveries(tenantId, ['pending'], presets, endpointId, PREVIEW_SCAN_LIMIT),
  ]);
  const endpoints = new Map<string, Promise<EndpointView | undefined>>();
  const endpoint = (id: string) => {
    if (!endpoints.has(id)) endpoints.set(id, store.endpoint(tenantId, id));
    return endpoints.get(id)!;
  };
  const groups: Record<'blocked' | 'waiting' | 'ready', Grouped[]> = { blocked: [], waiting: [], ready: [] };
  // Issue 16: a finished delivery past its preset's window can no longer be replayed.
  const reachable = [...failedRefs, ...pendingRefs].filter((r) => replayableAt(r, nowMs));
  await boundedMap(reachable, 16, async (ref) => {
    const state = await store.deliveryState(ref);
    if (!state) return;
    // One-off targets have no endpoint to be blocked by.
    const ep = ref.endpointId.startsWith('target:') ? 'none' : await endpoint(ref.endpointId);
    const g = replayGroupOf(ref, state, ep);
    if (!g) return;
    groups[g.group].push(g.group === 'blocked' ? { ref, state, reason: g.reason } : { ref, state });
  });
  const byAge = (a: Grouped, b: Grouped) => b.ref.startMs - a.ref.startMs;
  return {
    blocked: groups.blocked.sort(byAge),
    waiting: groups.waiting.sort(byAge),
    ready: groups.ready.sort(byAge),
    truncated: failedRefs.length >= PREVIEW_SCAN_LIMIT || pendingRefs.length >= PREVIEW_SCAN_LIMIT,
  };
}

/**
 * Issue 16: may this delivery be replayed at `nowMs`: its preset's window (policy/replay-window.ts
 * through `reopenable`) and, for every preset, R-DT-REPLAY's 90 days from the event.
 */
export function replayableAt(ref: DeliveryRef, nowMs: number): boolean {
  return reopenable(ref, nowMs) && nowMs - ref.startMs <= REPLAY_MAX_AGE_MS;
}

/**
 * What replaying this one delivery sends, by its preset's recovery offer (issue 14.6); a
 * preset that offers none refuses before any quota is spent.
 */
export function replayModeOf(ref: DeliveryRef): ReplayMode {
  const offer = recoveryOf(ref.preset);
  if (offer.deliveryReplay !== 'none') return offer.deliveryReplay;
  if (offer.windowReplay)
    refuse(
      'conflict',
      'delivery_replay_not_offered',
      'This endpoint replays by time window only',
      `Its preset (${ref.preset}) resends failures by window: POST /v1/replay/window ` +
        `{"endpointId":"${ref.endpointId}"} (since and until optional).`,
      { replay: { method: 'POST', href: '/v1/replay/window', body: { endpointId: ref.endpointId } } },
    );
  return refuse(
    'conflict',
    'not_replayable',
    'This endpoint offers no replay',
    'Read the event back through the events API.',
  );
}

/**
 * Why a replay was refused as too late (issue 14.11), from the preset's offer: how long it
 * keeps a delivery, and with it the event's body, for replay (Dong Tien: 90 days from the
 * event; the others from the end of the delivery's latest round).
 */
function replayWindowDetail(ref: DeliveryRef): string {
  const offer = recoveryOf(ref.preset);
  const days = Math.round(offer.openSeconds / 86_400);
  if (days <= 0) return 'Its replay window has closed.';
  const from =
    offer.openFrom === 'created'
      ? `the event (${ref.createdAt})`
      : `the end of its latest round${ref.closedAtMs !== undefined ? ` (${new Date(ref.closedAtMs).toISOString()})` : ''}`;
  return `Its preset keeps a delivery and its event's body ${days} days for replay, counted from ${from}; that window has closed.`;
}

/** R-DT-REPLAY: opens a new round (up to the policy's attempts, same schedule) on a finished delivery. */
export async function replayDelivery(
  store: ReplayStore,
  ref: DeliveryRef,
  nowMs: number,
): Promise<DeliveryState> {
  const mode = replayModeOf(ref);
  // Issue 14.11: say which window closed; Dong Tien's is the 90 days its bodies are kept.
  const expired = () =>
    refuse(
      'gone',
      'replay_window_expired',
      'This delivery can no longer be replayed',
      replayWindowDetail(ref),
      {
        createdAt: ref.createdAt,
      },
    );
  if (!replayableAt(ref, nowMs)) expired();
  const r = await store.replayDelivery(ref, mode);
  if (r.ok) return r.state;
  if (r.reason === 'in_progress')
    refuse(
      'conflict',
      'delivery_in_progress',
      'The delivery is pending or in flight',
      'Replay it once it has finished.',
    );
  return expired();
}

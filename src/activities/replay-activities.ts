import { activityInfo, heartbeat } from '@temporalio/activity';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { AttemptRecord, DeliveryState } from '../shared/delivery-types.js';
import { endpointViewQuery } from '../shared/endpoint-messages.js';
import { SA_ENDPOINT } from '../shared/search-attributes.js';
import {
  deliveriesQuery,
  deliveryState,
  latestRunsOnly,
  refOf,
  reopenable,
  statusIn,
  type DeliveryRef,
} from '../store/deliveries.js';
import { replayDeliveryRun } from '../store/replay.js';
import { CLOSES_AT_ROUND_END, RUNNING, createdAtOrBefore, eq, or } from '../store/visibility.js';

/** R-BIRD-REPLAY: one window replay covers at most this many (oldest) matches. */
export const WINDOW_REPLAY_MAX_MATCHES = 10_000;

/** What the API hands the replay-window workflow. Times are ISO, already clamped (3 days back at most). */
export interface ReplayWindowInput {
  tenantId: string;
  endpointId: string;
  since: string;
  until: string;
  /** When the tenant asked: a delivery already replayed since then is not sent again. */
  requestedAt: string;
}

export interface ReplayWindowResult {
  /** Open deliveries of the endpoint that could have failed in the window. */
  candidates: number;
  /** Those whose latest attempt in the window failed (at most 10,000). */
  matched: number;
  /** Sent their one attempt. */
  replayed: number;
  /** The endpoint was paused (or disabled, or gone): nothing was sent. */
  skippedEndpoint?: string;
}

/** Progress kept in the activity's heartbeat, so a retried activity never replays twice. */
interface Progress {
  after?: { startMs: number; id: string };
  candidates: number;
  matched: number;
  replayed: number;
}

const BATCH = 16;

/** Rows that are sends (an attempt, or a refusal to send); deferrals and lease losses are not. */
const isSend = (a: AttemptRecord) => a.kind === 'attempt' || a.kind === 'refused';

/** SPEC §5: the delivery's latest attempt (by attempt time) within [since, until] failed. */
export function latestInWindowFailed(s: DeliveryState, sinceMs: number, untilMs: number): boolean {
  let latest: AttemptRecord | undefined;
  for (const a of s.attempts) {
    if (!isSend(a)) continue;
    const at = Date.parse(a.startedAt);
    if (at < sinceMs || at > untilMs) continue;
    if (!latest || at >= Date.parse(latest.startedAt)) latest = a;
  }
  return latest !== undefined && latest.code !== undefined;
}

export function createReplayActivities(deps: { client?: Client }) {
  return {
    /**
     * R-BIRD-REPLAY in the background: picks the endpoint's deliveries whose latest attempt
     * in the window failed (never one already delivered), oldest first, at most 10,000, and
     * sends each one attempt (a `single` replay: same webhook-id, fresh signature).
     */
    async replayWindow(input: ReplayWindowInput): Promise<ReplayWindowResult> {
      const client = deps.client;
      if (!client) throw new Error('replay activities need a Temporal client in the worker');
      const sinceMs = Date.parse(input.since);
      const untilMs = Date.parse(input.until);
      const requestedMs = Date.parse(input.requestedAt);
      // A retried activity (or a second request) must not send the same delivery twice.
      const replayedSince = (s: DeliveryState) =>
        s.attempts.some((a) => a.replay && Date.parse(a.startedAt) >= requestedMs);

      const view = await client.workflow
        .getHandle(input.endpointId)
        .query(endpointViewQuery)
        .catch(() => undefined);
      if (!view || view.deleted || view.tenantId !== input.tenantId)
        return { candidates: 0, matched: 0, replayed: 0, skippedEndpoint: 'endpoint_not_found' };
      // A paused endpoint receives nothing, replays included (the request still counted).
      if (view.health.status === 'paused' || view.health.status === 'disabled')
        return { candidates: 0, matched: 0, replayed: 0, skippedEndpoint: `endpoint_${view.health.status}` };

      // Only finished deliveries can be replayed; a pending one still has its own schedule,
      // and a succeeded one was delivered. Nothing created after `until` attempted in it.
      // Issue 16: closed deliveries too, while their preset's window is open (`reopenable`).
      const query = deliveriesQuery(
        input.tenantId,
        eq(SA_ENDPOINT, input.endpointId),
        or(RUNNING, CLOSES_AT_ROUND_END),
        statusIn(['exhausted', 'failed', 'dead']),
        createdAtOrBefore(new Date(untilMs)),
      );
      const rows: DeliveryRef[] = [];
      for await (const wf of client.workflow.list({ query, pageSize: 1000 })) {
        rows.push(refOf(wf));
        if (rows.length % 1000 === 0) heartbeat(activityInfo().heartbeatDetails);
      }
      const nowMs = Date.now();
      const all = (await latestRunsOnly(client, rows)).filter((r) => reopenable(r, nowMs));
      const before = (a: { startMs: number; id: string }, b: { startMs: number; id: string }) =>
        a.startMs < b.startMs || (a.startMs === b.startMs && a.id < b.id);
      all.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));

      const resumed = activityInfo().heartbeatDetails as Progress | undefined;
      const p: Progress = resumed ?? { candidates: all.length, matched: 0, replayed: 0 };
      const todo = p.after ? all.filter((r) => before(p.after!, r)) : all;

      for (let i = 0; i < todo.length && p.matched < WINDOW_REPLAY_MAX_MATCHES; i += BATCH) {
        const batch = todo.slice(i, i + BATCH);
        const states = await Promise.all(
          batch.map((r) => deliveryState(client, r.id, r).catch(() => undefined)),
        );
        const picked = batch.filter((_r, j) => {
          const s = states[j];
          return (
            s !== undefined &&
            s.status !== 'succeeded' &&
            !replayedSince(s) &&
            latestInWindowFailed(s, sinceMs, untilMs)
          );
        });
        const take = picked.slice(0, WINDOW_REPLAY_MAX_MATCHES - p.matched);
        p.matched += take.length;
        const sent = await Promise.all(
          take.map(async (r) => {
            try {
              // Issue 16: a closed delivery is reopened as a new run, an open one by update.
              return (await replayDeliveryRun(client, r, 'single')).ok;
            } catch (err) {
              // Pending again or closed since it was listed: not this replay's to send.
              if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError)
                return false;
              throw err;
            }
          }),
        );
        p.replayed += sent.filter(Boolean).length;
        const last = take.length === picked.length ? batch[batch.length - 1]! : take[take.length - 1]!;
        p.after = { startMs: last.startMs, id: last.id };
        heartbeat(p);
      }
      return { candidates: p.candidates, matched: p.matched, replayed: p.replayed };
    },
  };
}

export type ReplayActivities = ReturnType<typeof createReplayActivities>;

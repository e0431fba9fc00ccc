import { ApplicationFailure, Context, heartbeat, sleep } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { isPermanentEmailError, isPermanentWebhookCode, type Notifier } from '../notify/notifier.js';
import type { Notice, NoticeContext } from '../notify/notices.js';
import { boundedMap } from '../shared/bounded-map.js';
import { pendingDeliveries } from '../store/visibility.js';
import { unlessNotFound } from '../store/not-found.js';
import { ORDER_DEFERRAL_CODE } from '../flow/limiter.js';
import { isDelayedStart } from '../store/delayed-start.js';
import { deliveryStateQuery, drainTurnSignal, endDeliverySignal, wakeSignal } from '../shared/messages.js';
import { endpointSnapshotQuery } from '../shared/endpoint-messages.js';
import type { OperationalWebhook, TestResult } from '../shared/endpoint-types.js';
import type { EndpointSnapshotCache } from './endpoint-cache.js';
import type { createHttpSender } from './http-sender.js';
import { createVerificationActivities } from './verify-endpoint.js';

export interface EndpointActivityDeps {
  client?: Client;
  cache?: EndpointSnapshotCache;
  send: ReturnType<typeof createHttpSender>;
  notifier?: Notifier;
  billingEmail?: (tenantId: string) => Promise<string | undefined>;
  now: () => Date;
}

const SIGNAL_CONCURRENCY = 32;

/** Visibility query for an endpoint's deliveries still waiting to be sent. */
export const pendingDeliveriesQuery = (endpointId: string): string => pendingDeliveries({ endpointId });

function isUnimplemented(err: unknown): boolean {
  const GRPC_UNIMPLEMENTED = 12;
  return (err as { cause?: { code?: number } })?.cause?.code === GRPC_UNIMPLEMENTED;
}

export function createEndpointActivities(deps: EndpointActivityDeps) {
  const need = (): Client => {
    if (!deps.client) throw new Error('endpoint activities need a Temporal client in the worker');
    return deps.client;
  };

  async function listPending(endpointId: string): Promise<Array<{ id: string; startedAt: number }>> {
    const out: Array<{ id: string; startedAt: number }> = [];
    for await (const wf of need().workflow.list({ query: pendingDeliveriesQuery(endpointId) })) {
      out.push({ id: wf.workflowId, startedAt: wf.startTime.getTime() });
    }
    return out;
  }

  /**
   * Signals every pending delivery of the endpoint, in passes, until a pass finds no new
   * one. Returns -1 on a server without visibility (the Java time-skipping test server):
   * the endpoint's `endedBefore` rule still ends those deliveries at their next attempt.
   */
  async function signalAllPending(
    endpointId: string,
    signal: (id: string) => Promise<void>,
  ): Promise<number> {
    const done = new Set<string>();
    for (let pass = 0; pass < 5; pass++) {
      let listed: Array<{ id: string; startedAt: number }>;
      try {
        listed = await listPending(endpointId);
      } catch (err) {
        if (isUnimplemented(err)) return -1;
        throw err;
      }
      const fresh = listed.filter((d) => !done.has(d.id));
      if (fresh.length === 0) break;
      await boundedMap(fresh, SIGNAL_CONCURRENCY, async (d) => {
        // A delivery that just ended is no longer running: nothing to do.
        await signal(d.id).catch(() => undefined);
        done.add(d.id);
        if (done.size % 100 === 0) heartbeat(done.size);
      });
    }
    return done.size;
  }

  return {
    // Issue 14.15: the endpoint's verification challenge, sent by the same sender as tests.
    ...createVerificationActivities(deps),

    /** Smengo disable (dead), Dong Tien dead-lettering (exhausted), Bird pause (failed). */
    async endPendingDeliveries(args: {
      endpointId: string;
      status: 'dead' | 'exhausted' | 'failed';
      code: string;
    }): Promise<number> {
      deps.cache?.invalidate(args.endpointId);
      return signalAllPending(args.endpointId, (id) =>
        need().workflow.getHandle(id).signal(endDeliverySignal, { status: args.status, code: args.code }),
      );
    },

    /** Resume: deliveries deferred by a pause go out now rather than at their next recheck. */
    async wakePendingDeliveries(args: { endpointId: string }): Promise<number> {
      deps.cache?.invalidate(args.endpointId);
      return signalAllPending(args.endpointId, (id) => need().workflow.getHandle(id).signal(wakeSignal));
    },

    /**
     * Issue 17 (`ordering: 'fifo'`): whether the head of an ordered endpoint's queue still has
     * a running workflow. One terminated, closed without telling, or never started (its
     * publish died between the enqueue and the start) is dropped from the queue.
     */
    async isDeliveryRunning(args: { deliveryId: string }): Promise<boolean> {
      const d = await unlessNotFound(need().workflow.getHandle(args.deliveryId).describe());
      return d?.status.name === 'RUNNING';
    },

    /**
     * Dong Tien: releases held deliveries one at a time, oldest first, each sending once
     * before the next; stops as soon as one fails (the endpoint suspends itself again).
     * Runs as an activity so ten thousand releases never touch the endpoint's history.
     */
    async drainHeldDeliveries(args: { endpointId: string }): Promise<{ released: number; stopped: boolean }> {
      const client = need();
      const released = new Set<string>();
      let skippedLastPass = 0;
      for (;;) {
        let listed: Array<{ id: string; startedAt: number }>;
        try {
          listed = await listPending(args.endpointId);
        } catch (err) {
          if (isUnimplemented(err)) return { released: -1, stopped: true };
          throw err;
        }
        const queue = listed
          .filter((d) => !released.has(d.id))
          .sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id));
        if (queue.length === 0) return { released: released.size, stopped: false };
        // Issue 17: a pass where every delivery waited for an earlier one (its head not held,
        // or gone and not yet dropped) looks again after a pause instead of spinning.
        let skipped = 0;
        if (skippedLastPass >= queue.length) await sleep(1_000);
        for (const d of queue) {
          const snap = await client.workflow.getHandle(args.endpointId).query(endpointSnapshotQuery);
          if (!snap.health.draining || snap.health.status !== 'active')
            return { released: released.size, stopped: true };
          const handle = client.workflow.getHandle(d.id);
          let was;
          try {
            was = (await handle.query(deliveryStateQuery)).attempts;
          } catch (err) {
            // Issue 17: a delivery started with a delay (its rate-limited turn reserved at
            // publish) holds nothing yet: it goes at its turn; a later pass looks again.
            if (!isDelayedStart(err)) throw err;
            skipped++;
            continue;
          }
          const before = was.length;
          const lastBefore = JSON.stringify(was[before - 1] ?? null);
          await handle.signal(drainTurnSignal);
          released.add(d.id);
          // Wait for its one send: a new attempt row, or the delivery ending.
          for (let i = 0; ; i++) {
            heartbeat({ released: released.size, current: d.id });
            if (Context.current().cancellationSignal.aborted)
              return { released: released.size, stopped: true };
            const s = await handle.query(deliveryStateQuery);
            const rows = s.attempts.slice(before);
            const sent = rows.find((r) => r.kind === 'attempt' || r.kind === 'refused');
            if (sent) {
              if (sent.code !== undefined) return { released: released.size, stopped: true };
              // Issue 17: an ordered endpoint's next delivery may go only once this one has
              // ended its round (and so released its place): wait for that, not just the send.
              if (snap.flow?.ordering !== 'fifo' || (s.status !== 'pending' && s.status !== 'processing')) break;
            }
            if (s.status !== 'pending' && s.status !== 'processing') break;
            // Issue 17: an ordered delivery whose earlier one is unfinished cannot take its turn
            // (a publish raced another, or a dead-letter retry sits behind newer ones); the
            // drain goes on to the next and gives it its turn on a later pass.
            // (A long run of them widens the last row instead of adding one.)
            const last = s.attempts[s.attempts.length - 1];
            const waitsForOrder =
              rows.some((r) => r.kind === 'deferral' && r.code === ORDER_DEFERRAL_CODE) ||
              (last?.kind === 'deferral' && last.code === ORDER_DEFERRAL_CODE && JSON.stringify(last) !== lastBefore);
            if (waitsForOrder) {
              released.delete(d.id);
              skipped++;
              break;
            }
            // A stale read made it defer again: give it the turn once more.
            if (rows.some((r) => r.kind === 'deferral') && i % 20 === 19)
              await handle.signal(drainTurnSignal);
            await sleep(50);
          }
        }
        skippedLastPass = skipped;
      }
    },

    async notifyEndpoint(args: {
      notice: Notice;
      ctx: NoticeContext;
      createdBy?: string;
      operationalWebhook?: OperationalWebhook;
    }): Promise<{ email?: string; webhook?: string }> {
      if (!deps.notifier) return { email: 'notifier_not_configured' };
      // SPEC §4 emails on disable, suspend, degrade (and Bird's pause); a recovery is
      // news for machines, so it goes by operational webhook only.
      const emailTo =
        args.notice === 'recovered'
          ? undefined
          : ((await deps.billingEmail?.(args.ctx.tenantId)) ?? args.createdBy);
      const r = await deps.notifier.notify({
        notice: args.notice,
        ctx: args.ctx,
        emailTo,
        operationalWebhook: args.operationalWebhook,
      });
      const emailError = r.email && 'error' in r.email ? r.email.error : undefined;
      const webhookCode = r.webhook && !r.webhook.ok ? (r.webhook.code ?? 'webhook_error') : undefined;
      const retryable =
        (emailError && !isPermanentEmailError(emailError)) ||
        (webhookCode && !isPermanentWebhookCode(webhookCode));
      if (retryable)
        throw ApplicationFailure.retryable(`notification not sent: ${emailError ?? webhookCode}`);
      return {
        email: r.email ? ('messageId' in r.email ? 'sent' : r.email.error) : undefined,
        webhook: r.webhook ? (r.webhook.ok ? 'sent' : webhookCode) : undefined,
      };
    },

    /** A manual test delivery (R-SMENGO-HEALTH): one signed POST, whatever the endpoint's state. */
    async sendTestDelivery(args: {
      endpointId: string;
      url: string;
      secrets: string[];
      timeoutSeconds: number;
      deliveryIdHeader: string;
    }): Promise<TestResult> {
      const at = deps.now();
      const id = `msg_test_${args.endpointId}_${at.getTime()}`;
      const body = JSON.stringify({
        type: 'endpoint.test',
        timestamp: at.toISOString(),
        data: { endpointId: args.endpointId },
      });
      const r = await deps.send({
        deliveryId: `test_${args.endpointId}_${at.getTime()}`,
        attempt: 1,
        event: { id, type: 'endpoint.test', occurredAt: at.toISOString(), body },
        target: { url: args.url, secrets: args.secrets },
        timeoutSeconds: args.timeoutSeconds,
        deliveryIdHeader: args.deliveryIdHeader,
      });
      return {
        ok: r.code === undefined,
        at: at.getTime(),
        httpStatus: r.httpStatus,
        code: r.code,
        latencyMs: r.latencyMs,
      };
    },
  };
}

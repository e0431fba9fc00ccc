// Issue 14.2: every waiting delivery can end. Deferrals spend nothing, so without a bound a
// wait nobody ends (a Dong Tien endpoint paused and forgotten, every evaluator busy) would
// repeat for ever. On the time-skipping server with the real workflows and activities.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendGate } from '../../src/activities/index.js';
import { TERMINAL_STATUSES, type DeliveryState } from '../../src/shared/delivery-types.js';
import { pauseEndpointUpdate } from '../../src/shared/endpoint-messages.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { TRANSFORM_BUSY_RETRY_MS } from '../../src/transform/send.js';
import { DeliveryHarness } from '../helpers/delivery-harness.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const HOUR = 3600 * S;
const DAY = 24 * HOUR;
/** README: a delivery deferred 90 days in a row, with no attempt between, becomes a dead letter. */
const DEFERRAL_LIMIT_MS = 90 * DAY;
const ended = (s: DeliveryState) => TERMINAL_STATUSES.includes(s.status);

/** The rows of a deferral streak: first start to last end, and how many rechecks they stand for. */
function streak(s: DeliveryState) {
  const rows = s.attempts.filter((a) => a.kind === 'deferral');
  return {
    rows,
    from: Date.parse(rows[0]!.startedAt),
    to: Date.parse(rows.at(-1)!.finishedAt),
    checks: rows.reduce((n, r) => n + (r.repeats ?? 1), 0),
  };
}

/**
 * Skips time until `done`, in steps that grow with the time skipped (an hour at first, a
 * day at most), and fails early if the wait grows the current run's history past 2,000
 * events (issue 14.1) instead of skipping 90 days of one-a-minute polls.
 */
async function skipUntil(
  env: { sleep(ms: number): Promise<void> },
  done: () => Promise<boolean>,
  runEvents: () => Promise<number>,
  maxMs: number,
) {
  for (let t = 0; t <= maxMs; ) {
    if (await done()) return;
    expect(await runEvents()).toBeLessThan(2_000);
    const step = Math.min(DAY, Math.max(HOUR, t / 4));
    await env.sleep(step);
    t += step;
  }
  throw new Error(`still waiting after ${maxMs} ms of skipped time`);
}
const eventsOf = (client: { workflow: { getHandle(id: string): { fetchHistory(): Promise<{ events?: unknown[] | null }> } } }, id: string) =>
  async () => (await client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;

describe('14.2 a paused endpoint of a preset without lifetime: the wait ends (R-DT-HEALTH, R-STATUS)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((_req, _i, res) => res.writeHead(200).end());
  });
  afterAll(async () => h?.close());

  it('14.2 R-STATUS: a Dong Tien delivery held by a manual pause that is never lifted ends exhausted (deferral_limit) at 90 days, nothing sent, endpoint health untouched', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('dongtien');
    await ep.executeUpdate(pauseEndpointUpdate);
    const d = await h.publish(endpointId, 'dongtien');
    await skipUntil(h.env, async () => ended(await h.delivery(d)), eventsOf(h.env.client, d.workflowId), 100 * DAY);

    const s = await h.delivery(d);
    expect(s.status).toBe('exhausted');
    expect(s.lastCode).toBe('deferral_limit');
    expect(s.attemptsInRound).toBe(0);
    expect(h.requestsFor(endpointId)).toHaveLength(0);
    const w = streak(s);
    expect(w.rows.every((a) => a.code === 'endpoint_paused')).toBe(true);
    // Ended at the limit: the last recheck is timed to it (plus the real time that check took).
    expect(w.to - w.from).toBeGreaterThanOrEqual(DEFERRAL_LIMIT_MS);
    expect(w.to - w.from).toBeLessThan(DEFERRAL_LIMIT_MS + 60 * S);
    // A dead letter of Herald's wait, not a failure of the receiver: the pause stands.
    expect((await h.view(endpointId)).health.status).toBe('paused');
  }, 600_000);
});

describe('14.2 every transformation evaluator busy: the wait ends (R-RH-DEFER, R-RH-TRANSFORM)', () => {
  const busy = new Set<string>();
  const gate: SendGate = async (req) =>
    busy.has(req.deliveryId) ? { code: 'transformation_busy', retryInMs: TRANSFORM_BUSY_RETRY_MS } : undefined;
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await DeliveryHarness.create({ gate });
  });
  afterAll(async () => h?.close());

  it('14.2 R-RH-DEFER: a delivery whose transformation never gets an evaluator (Smengo: no lifetime) ends exhausted (deferral_limit) at 90 days; nothing sent; the 5 s rechecks back off', async () => {
    const deliveryId = `dlv_14_2_busy_${Math.random().toString(36).slice(2, 8)}`;
    busy.add(deliveryId);
    const { handle, requests } = await h.start({ preset: 'smengo', deliveryId });
    await skipUntil(h.env, async () => ended(await handle.query(deliveryStateQuery)), eventsOf(h.env.client, deliveryId), 100 * DAY);
    const s: DeliveryState = await handle.query(deliveryStateQuery);

    expect(s.status).toBe('exhausted');
    expect(s.lastCode).toBe('deferral_limit');
    expect(s.attemptsInRound).toBe(0);
    expect(requests()).toHaveLength(0);
    const w = streak(s);
    expect(w.rows.every((a) => a.code === 'transformation_busy')).toBe(true);
    // Ended at the limit: the last recheck is timed to it (plus the real time that check took).
    expect(w.to - w.from).toBeGreaterThanOrEqual(DEFERRAL_LIMIT_MS);
    expect(w.to - w.from).toBeLessThan(DEFERRAL_LIMIT_MS + 60 * S);
    // Far fewer rechecks than one per 5 s over 90 days (1.5 million).
    expect(w.checks).toBeLessThan(10_000);
  }, 600_000);
});

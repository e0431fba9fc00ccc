// R-RH-INBOUND schedule on the time-skipping server: forwards run the real delivery
// workflow (as `forwardWorkflow`) and the real send activity against a receiver on
// 127.0.0.1, with the inbound policy exactly as the API resolves it (preset, destination
// overrides, FORWARD_ESCALATION_HARD_CAP_HOURS). Hours of schedule pass in seconds.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicyResolver } from '../../src/deliveries/policy-resolver.js';
import { forwardInput, newForwardId, newRequestId } from '../../src/inbound/forwards.js';
import type { PolicyOverrides } from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState } from '../../src/shared/delivery-types.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { FORWARD_WORKFLOW } from '../../src/shared/names.js';
import { DeliveryHarness, attemptGapsMs } from '../helpers/delivery-harness.js';
import type { ReceivedRequest, Responder } from '../helpers/receiver.js';
import { testConfig } from '../helpers/temporal.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const SLACK = 1000;
/** A wait can only look longer than scheduled by the real time a workflow task takes. */
const SLACK_LATE = 1500;
const INBOUND_S = [60, 300, 900, 3600];

type Reply = number | { status: number; hang?: boolean };

/** Answers the n-th request of each forward (keyed by its Idempotency-Key) with replies[n], the last repeating. */
function script(...replies: Reply[]): Responder {
  const seen = new Map<string, number>();
  return (req, _i, res) => {
    const key = String(req.headers['idempotency-key'] ?? '');
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const r = replies[Math.min(n, replies.length - 1)]!;
    const spec = typeof r === 'number' ? { status: r } : r;
    if (spec.hang) return;
    res.writeHead(spec.status).end('');
  };
}

const attempts = (s: DeliveryState) => s.attempts.filter((a) => a.kind === 'attempt');

function expectWait(gapMs: number | undefined, baseSeconds: number) {
  expect(gapMs).toBeDefined();
  expect(gapMs!).toBeGreaterThanOrEqual(baseSeconds * S * 0.5 - SLACK);
  expect(gapMs!).toBeLessThanOrEqual(baseSeconds * S * 1.5 + SLACK_LATE);
}

describe('R-RH-INBOUND forward schedule (time-skipping)', () => {
  let h: DeliveryHarness;
  const resolve = createPolicyResolver(testConfig());
  const body = '{"sender":"payload","n":1}';

  beforeAll(async () => {
    h = await DeliveryHarness.create();
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A forward as the ingest route makes it: one received request to one destination. */
  async function startForward(o: {
    policy?: PolicyOverrides;
    respond: Responder;
    capHours?: string;
  }): Promise<{ handle: WorkflowHandle; input: DeliveryInput; requests: () => ReceivedRequest[] }> {
    h.receiver.respondWith(o.respond);
    const resolver = o.capHours
      ? createPolicyResolver(testConfig({ FORWARD_ESCALATION_HARD_CAP_HOURS: o.capHours }))
      : resolve;
    const now = new Date(await h.env.currentTimeMs()).toISOString();
    const input = forwardInput({
      forwardId: newForwardId(),
      tenantId: 'tn_inbound',
      destination: { destinationId: 'dst_schedule', url: `${h.baseUrl}/fwd`, policy: o.policy, createdAt: 0 },
      policy: resolver('railhook', o.policy, 'inbound'),
      request: {
        sourceId: 'src_schedule',
        requestId: newRequestId(),
        receivedAt: now,
        headers: [
          ['Content-Type', 'application/json'],
          ['X-Sender', 'yes'],
        ],
        bodyEncoding: 'utf8',
      },
      body,
      createdAt: now,
    });
    const handle = await h.env.client.workflow.start(FORWARD_WORKFLOW, {
      workflowId: input.deliveryId,
      taskQueue: h.taskQueue,
      args: [input],
    });
    const mine = () => h.receiver.requests.filter((r) => r.headers['idempotency-key'] === input.deliveryId);
    return { handle, input, requests: mine };
  }

  it('R-RH-INBOUND R-JITTER: 5 attempts, waits 1m, 5m, 15m, 1h each x 0.5-1.5, then exhausted; every attempt forwards the original', async () => {
    const { handle, input, requests } = await startForward({ respond: script(502) });
    expect(input.policy).toMatchObject({ direction: 'inbound', maxAttempts: 5, lifetimeSeconds: 24 * 3600 });
    const state = (await handle.result()) as DeliveryState;
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('http_502');
    expect(attempts(state).map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    const gaps = attemptGapsMs(state);
    expect(gaps).toHaveLength(4);
    gaps.forEach((g, i) => expectWait(g, INBOUND_S[i]!));
    // The jitter is really drawn: four factors all within 2% of 1 is a ~1e-6 event.
    expect(gaps.some((g, i) => Math.abs(g / (INBOUND_S[i]! * S) - 1) > 0.02)).toBe(true);
    const reqs = requests();
    expect(reqs).toHaveLength(5);
    reqs.forEach((r, i) => {
      expect(r.body).toBe(body);
      expect(r.headers['x-sender']).toBe('yes');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-delivery-id']).toBe(`${input.deliveryId}:${i + 1}`);
      // Not re-signed by Herald.
      expect(r.headers['webhook-signature']).toBeUndefined();
    });
  });

  it('R-RH-INBOUND: 408, 429 and 5xx are retried on the inbound schedule; a 2xx ends it', async () => {
    const { handle } = await startForward({ respond: script(408, 429, 503, 200) });
    const state = (await handle.result()) as DeliveryState;
    expect(state.status).toBe('succeeded');
    expect(attempts(state).map((a) => a.httpStatus)).toEqual([408, 429, 503, 200]);
    attemptGapsMs(state).forEach((g, i) => expectWait(g, INBOUND_S[i]!));
  });

  it("R-RH-CUSTOM: a destination's maxAttempts and retryDelays replace the inbound schedule (the last delay repeats)", async () => {
    const a = await startForward({
      policy: { maxAttempts: 3, retryDelays: [30, 120] },
      respond: script(500),
    });
    const sa = (await a.handle.result()) as DeliveryState;
    expect(sa.status).toBe('exhausted');
    expect(attempts(sa)).toHaveLength(3);
    const ga = attemptGapsMs(sa);
    expectWait(ga[0], 30);
    expectWait(ga[1], 120);

    const b = await startForward({ policy: { maxAttempts: 7, retryDelays: [600] }, respond: script(500) });
    const sb = (await b.handle.result()) as DeliveryState;
    expect(attempts(sb)).toHaveLength(7);
    attemptGapsMs(sb).forEach((g) => expectWait(g, 600));
  });

  it("R-RH-CUSTOM: a destination's retryableStatuses decides what is retried (409 retried; 500 dead-lettered at once)", async () => {
    const a = await startForward({ policy: { retryableStatuses: '409' }, respond: script(409, 409, 200) });
    const sa = (await a.handle.result()) as DeliveryState;
    expect(sa.status).toBe('succeeded');
    expect(attempts(sa).map((x) => x.httpStatus)).toEqual([409, 409, 200]);

    const b = await startForward({ policy: { retryableStatuses: '409' }, respond: script(500) });
    const sb = (await b.handle.result()) as DeliveryState;
    expect(sb.status).toBe('exhausted');
    expect(sb.lastCode).toBe('http_500');
    expect(attempts(sb)).toHaveLength(1);
  });

  it("R-RH-CUSTOM: a destination's timeoutSeconds (1 s) ends a hanging attempt with `timeout`, retried", async () => {
    const { handle } = await startForward({
      policy: { timeoutSeconds: 1, maxAttempts: 2 },
      respond: script({ status: 0, hang: true }, 200),
    });
    const state = (await handle.result()) as DeliveryState;
    expect(state.status).toBe('succeeded');
    const rows = attempts(state);
    expect(rows[0]).toMatchObject({ code: 'timeout' });
    expect(rows[0]!.latencyMs).toBeGreaterThanOrEqual(900);
    expect(rows[0]!.latencyMs).toBeLessThan(5000);
    expectWait(attemptGapsMs(state)[0], 60);
  });

  it('R-RH-LIFETIME: a forward not finished 24 h after creation is exhausted (`lifetime_exceeded`), attempts left unused', async () => {
    // A 48 h step can never come before the 24 h cap (0.5 x 48 h = 24 h at the earliest).
    const { handle, input, requests } = await startForward({
      policy: { maxAttempts: 3, retryDelays: [172_800] },
      respond: script(500),
    });
    const deadline = Date.parse(input.createdAt) + 24 * HOUR;
    await h.env.sleep(deadline - MIN - (await h.env.currentTimeMs()));
    const before = await handle.query(deliveryStateQuery);
    expect(before).toMatchObject({ status: 'pending', attemptsInRound: 1 });
    await h.env.sleep(2 * MIN);
    const after = await handle.query(deliveryStateQuery);
    expect(after.status).toBe('exhausted');
    expect(after.lastCode).toBe('lifetime_exceeded');
    expect(attempts(after)).toHaveLength(1);
    expect(requests()).toHaveLength(1);
    await handle.terminate('test done');
  });

  it('R-RH-LIFETIME: FORWARD_ESCALATION_HARD_CAP_HOURS moves the forward cap (6 h)', async () => {
    const { handle, input } = await startForward({
      policy: { maxAttempts: 3, retryDelays: [86_400] },
      respond: script(500),
      capHours: '6',
    });
    expect(input.policy.lifetimeSeconds).toBe(6 * 3600);
    const state = (await handle.result()) as DeliveryState;
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('lifetime_exceeded');
    expect(attempts(state)).toHaveLength(1);
    const ended = Date.parse(state.attempts.at(-1)!.finishedAt);
    expect(ended - Date.parse(input.createdAt)).toBeLessThanOrEqual(6 * HOUR + SLACK_LATE);
  });

  it('R-RH-INBOUND R-RH-DLQ: a forward made from a dead one starts at attempt 1 at once, with its own 24 h', async () => {
    const first = await startForward({ policy: { maxAttempts: 2, retryDelays: [60] }, respond: script(500) });
    const dead = (await first.handle.result()) as DeliveryState;
    expect(dead.status).toBe('exhausted');
    // What the retry route does: the same request, a new forward id, created now.
    const now = new Date(await h.env.currentTimeMs()).toISOString();
    const fwd = first.input.target!.forward!;
    const retry = forwardInput({
      forwardId: newForwardId(),
      tenantId: first.input.tenantId,
      destination: { destinationId: fwd.destinationId, url: first.input.target!.url, createdAt: 0 },
      policy: resolve('railhook', undefined, 'inbound'),
      request: { ...fwd, retryOf: first.input.deliveryId },
      body: first.input.event.body,
      createdAt: now,
    });
    h.receiver.respondWith(script(503, 200));
    const handle = await h.env.client.workflow.start(FORWARD_WORKFLOW, {
      workflowId: retry.deliveryId,
      taskQueue: h.taskQueue,
      args: [retry],
    });
    const state = (await handle.result()) as DeliveryState;
    expect(state.status).toBe('succeeded');
    const rows = attempts(state);
    expect(rows.map((a) => a.attempt)).toEqual([1, 2]);
    expect(Date.parse(rows[0]!.startedAt) - Date.parse(now)).toBeLessThan(10_000);
    // The inbound schedule from its first step, not the +3 outbound dead-letter retry.
    expectWait(attemptGapsMs(state)[0], 60);
    expect(state.attemptBudget).toBe(5);
  });
});

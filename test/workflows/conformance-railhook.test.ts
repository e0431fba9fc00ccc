// Conformance of the `railhook` preset (SPEC §3 railhook column, "Railhook specifics", and
// the §2 rules that apply), end to end: the real delivery workflow and send activity on a
// time-skipping Temporal server, against a real HTTP receiver on 127.0.0.1. Every test
// name starts with the rule id it proves.
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendGate } from '../../src/activities/index.js';
import {
  PolicyError,
  applyOperatorSettings,
  assertScheduleFitsLifetime,
  resolvePolicy,
  type DeliveryPolicy,
} from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState, DeliveryTarget } from '../../src/shared/delivery-types.js';
import { deliveryStateQuery, retryDeadLetterUpdate } from '../../src/shared/messages.js';
import { DELIVERY_WORKFLOW } from '../../src/shared/names.js';
import { SA_STATUS } from '../../src/shared/search-attributes.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { DeliveryHarness, attemptGapsMs, type DeliverOptions } from '../helpers/delivery-harness.js';
import { freePort } from '../helpers/ports.js';
import { Receiver, type ReceivedRequest, type Responder } from '../helpers/receiver.js';
import { workflowBundle } from '../helpers/temporal.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
/** Slack on every measured wait (the brief's "~1 s"). */
const SLACK = 1000;
/**
 * Upper slack: a wait can only look longer than scheduled, by the real time the worker
 * takes to pick up the timer's workflow task (time does not skip meanwhile).
 */
const SLACK_LATE = 1500;
/**
 * "Immediate" is measured across real processing (time is not skipped while the workflow
 * task and the request run), so it gets more room on a loaded machine; it stays below the
 * shortest schedule step it must be told apart from (30 s).
 */
const IMMEDIATE = 10_000;
const JITTER: [number, number] = [0.5, 1.5];
const SCHEDULE_S = [60, 300, 900, 3600, 21600, 86400];
/**
 * A custom schedule that can never fit 96 h: attempt 4 would come no earlier than
 * 0.5 x (14 h + 14 h + 7 d) = 98 h. Its first two steps still fit 3 attempts in 96 h.
 */
const LONG_DELAYS = [50400, 50400, 604800];

// ---------------------------------------------------------------------------------------
// Helpers (kept local: this file owns no shared helper module)

/** The harness always sends to an explicit target. */
type Input = DeliveryInput & { target: DeliveryTarget };

interface ReplySpec {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer: the sender's timeout has to end the attempt. */
  hang?: boolean;
}
type Reply = number | ReplySpec | (() => ReplySpec | Promise<ReplySpec>);

/**
 * Answers the n-th request *of each delivery* (keyed by its Idempotency-Key) with
 * replies[n], the last one repeating. The harness's statusResponder counts requests
 * across the whole receiver, which is wrong once one harness serves many deliveries.
 */
function script(...replies: Reply[]): Responder {
  const seen = new Map<string, number>();
  return async (req, _i, res) => {
    const key = String(req.headers['idempotency-key'] ?? '');
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const r = replies[Math.min(n, replies.length - 1)]!;
    const spec = typeof r === 'number' ? { status: r } : typeof r === 'function' ? await r() : r;
    if (spec.hang) return;
    res.writeHead(spec.status, spec.headers ?? {}).end(spec.body ?? '');
  };
}

const attemptRows = (s: DeliveryState) => s.attempts.filter((a) => a.kind === 'attempt');

/** Requests of one delivery only, whatever else the shared receiver saw. */
function requestsOf(r: Receiver, input: Input): ReceivedRequest[] {
  return r.requests.filter((q) => q.headers['idempotency-key'] === input.deliveryId);
}

/**
 * R-SIGN / R-HDR on every request: same body and webhook-id, a signature that the
 * independent `standardwebhooks` package verifies, Idempotency-Key = delivery id, and
 * `<deliveryId>:<attempt>` matching the attempt log row by row.
 */
function expectSignedRequests(reqs: ReceivedRequest[], input: Input, state?: DeliveryState) {
  const header = input.policy.deliveryIdHeader.toLowerCase();
  for (const r of reqs) {
    expect(r.method).toBe('POST');
    expect(r.body).toBe(input.event.body);
    expect(r.headers['webhook-id']).toBe(input.event.id);
    expect(r.headers['idempotency-key']).toBe(input.deliveryId);
    expect(r.headers['content-type']).toBe('application/json');
    for (const secret of input.target.secrets) {
      expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    }
  }
  if (state) {
    const rows = attemptRows(state);
    expect(reqs.map((r) => r.headers[header])).toEqual(rows.map((a) => `${input.deliveryId}:${a.attempt}`));
  }
}

function expectWait(gapMs: number | undefined, baseSeconds: number, [lo, hi]: [number, number] = JITTER) {
  expect(gapMs).toBeDefined();
  expect(gapMs!).toBeGreaterThanOrEqual(baseSeconds * S * lo - SLACK);
  expect(gapMs!).toBeLessThanOrEqual(baseSeconds * S * hi + SLACK_LATE);
}

function expectAbout(gapMs: number | undefined, ms: number, below = SLACK, above = SLACK_LATE) {
  expect(gapMs).toBeDefined();
  expect(gapMs!).toBeGreaterThanOrEqual(ms - below);
  expect(gapMs!).toBeLessThanOrEqual(ms + above);
}

async function query(handle: WorkflowHandle): Promise<DeliveryState> {
  return handle.query(deliveryStateQuery);
}

/** Polls in real time (no time skipping) until the state satisfies `pred`. */
async function pollUntil(handle: WorkflowHandle, pred: (s: DeliveryState) => boolean, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await query(handle);
    if (pred(s)) return s;
    if (Date.now() > until) throw new Error(`state never matched: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The ApplicationFailure type of a failed update; fails the test if the update succeeded. */
async function updateFailureType(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (err as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return (cause as ApplicationFailure).type ?? undefined;
  }
  throw new Error('the update was accepted');
}

// ---------------------------------------------------------------------------------------

describe('railhook preset conformance', () => {
  let h: DeliveryHarness;
  /** A second receiver on 127.0.0.2, outside the harness allowlist (127.0.0.1/32 only). */
  const privateReceiver = new Receiver();
  let privateBase = '';
  /** Gate plans per delivery id (R-RH-DEFER); deliveries without a plan are never deferred. */
  const gatePlans = new Map<string, SendGate>();

  beforeAll(async () => {
    h = await DeliveryHarness.create({
      dns: {
        'hook.test': ['127.0.0.1'],
        'internal.test': ['127.0.0.2'],
        'slow-dns.test': 'hang',
        'nxdomain.test': [],
      },
      gate: async (req) => gatePlans.get(req.deliveryId)?.(req),
    });
    privateBase = await privateReceiver.start('127.0.0.2');
    // Warm the worker (bundle load, first polls) so no test measures a cold start.
    await h.deliver({ preset: 'standard', respond: script(204) });
  });
  afterAll(async () => {
    await privateReceiver.stop();
    await h?.close();
  });

  /**
   * Runs a delivery whose policy is not a plain preset + overrides (operator settings, the
   * inbound forward policy), the way the worker's policy resolver would hand it over.
   */
  async function deliverWithPolicy(o: DeliverOptions, policy: DeliveryPolicy) {
    if (o.respond) h.receiver.respondWith(o.respond);
    const input = { ...h.input(o, await h.env.currentTimeMs()), policy };
    const handle = await h.env.client.workflow.start(DELIVERY_WORKFLOW, {
      workflowId: input.deliveryId,
      taskQueue: h.taskQueue,
      args: [input],
    });
    const state = (await handle.result()) as DeliveryState;
    return { state, input, requests: requestsOf(h.receiver, input) };
  }

  // ---- R-PRESET: the column's values -------------------------------------------------

  it('R-PRESET: the railhook policy carries the seed values (7 attempts, 1m..24h, jitter 0.5-1.5, 30 s, 96 h, RA 429/503 max 21600 s)', () => {
    const p = resolvePolicy('railhook');
    expect(p.maxAttempts).toBe(7);
    expect(p.retryDelaysSeconds).toEqual(SCHEDULE_S);
    expect(p.jitter.min).toBe(0.5);
    expect(p.jitter.max).toBe(1.5);
    expect(p.timeoutSeconds).toBe(30);
    expect(p.lifetimeSeconds).toBe(96 * 3600);
    expect(p.retryAfter).toMatchObject({ rule: 'max', capSeconds: 21600, ignore: false });
    expect(p.leaseSeconds).toBe(300);
  });

  it('R-PRESET R-JITTER R-DELAY R-SIGN R-HDR: 7 attempts on 5xx, waits 1m,5m,15m,1h,6h,24h x 0.5-1.5, then exhausted', async () => {
    const { state, input, requests } = await h.deliver({ preset: 'railhook', respond: script(500) });
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('http_500');
    const rows = attemptRows(state);
    expect(rows).toHaveLength(7);
    expect(rows.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(rows.every((a) => a.httpStatus === 500 && a.code === 'http_500')).toBe(true);
    // Attempt 1 goes out at once.
    expectAbout(Date.parse(rows[0]!.startedAt) - Date.parse(input.createdAt), 0, 0, IMMEDIATE);
    const gaps = attemptGapsMs(state);
    expect(gaps).toHaveLength(6);
    gaps.forEach((g, i) => expectWait(g, SCHEDULE_S[i]!));
    // Jitter is really applied: six factors drawn from [0.5, 1.5) all within 2% of 1 is
    // a ~1e-10 event.
    const factors = gaps.map((g, i) => g / (SCHEDULE_S[i]! * S));
    expect(factors.some((f) => Math.abs(f - 1) > 0.02)).toBe(true);
    expect(requests).toHaveLength(7);
    expectSignedRequests(requests, input, state);
  });

  it('R-JITTER: the jittered schedule is workflow-deterministic (the history replays without divergence)', async () => {
    const { input } = await h.deliver({ preset: 'railhook', respond: script(503, 500, 200) });
    const history = await h.env.client.workflow.getHandle(input.deliveryId).fetchHistory();
    await expect(
      Worker.runReplayHistory({ workflowBundle: workflowBundle() }, history, input.deliveryId),
    ).resolves.toBeUndefined();
  });

  // ---- retried / non-retried responses -----------------------------------------------

  it('R-PRESET R-ERRCODES: 408, 429 and 5xx (500, 502, 503, 599) are retried on schedule', async () => {
    const { state, input, requests } = await h.deliver({
      preset: 'railhook',
      respond: script(408, 429, 500, 502, 503, 599, 200),
    });
    expect(state.status).toBe('succeeded');
    const rows = attemptRows(state);
    expect(rows.map((a) => a.httpStatus)).toEqual([408, 429, 500, 502, 503, 599, 200]);
    expect(rows.map((a) => a.code)).toEqual([
      'http_408',
      'http_429',
      'http_500',
      'http_502',
      'http_503',
      'http_599',
      undefined,
    ]);
    attemptGapsMs(state).forEach((g, i) => expectWait(g, SCHEDULE_S[i]!));
    expectSignedRequests(requests, input, state);
  });

  it.each([400, 401, 403, 404, 405, 409, 410, 413, 422, 451, 300, 301, 302, 303, 304, 307, 308])(
    'R-PRESET R-STATUS: a %i is dead-lettered (exhausted) right after the attempt, no retry',
    async (status) => {
      const { state, input, requests } = await h.deliver({
        preset: 'railhook',
        respond: script(status, 200),
      });
      expect(state.status).toBe('exhausted');
      const rows = attemptRows(state);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.httpStatus).toBe(status);
      const code = status === 410 ? 'gone' : status < 400 ? 'redirect_not_allowed' : `http_${status}`;
      expect(rows[0]!.code).toBe(code);
      expect(state.lastCode).toBe(code);
      expect(requests).toHaveLength(1);
      expectSignedRequests(requests, input, state);
    },
  );

  it('R-PRESET: a non-retryable 404 after two 5xx dead-letters after that (third) attempt, not at the end of the schedule', async () => {
    const { state, requests } = await h.deliver({ preset: 'railhook', respond: script(500, 503, 404, 200) });
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('http_404');
    expect(attemptRows(state).map((a) => a.httpStatus)).toEqual([500, 503, 404]);
    expect(requests).toHaveLength(3);
  });

  it.each([301, 302, 303, 307, 308])(
    'R-NOREDIR: a %i is never followed (the Location is never requested) and fails with redirect_not_allowed',
    async (status) => {
      const target = `/redirected-${status}-${Math.random().toString(36).slice(2, 8)}`;
      const { state, requests } = await h.deliver({
        preset: 'railhook',
        respond: script({ status, headers: { location: `${h.baseUrl}${target}` } }),
      });
      expect(state.status).toBe('exhausted');
      expect(state.lastCode).toBe('redirect_not_allowed');
      expect(attemptRows(state)[0]).toMatchObject({ httpStatus: status, code: 'redirect_not_allowed' });
      expect(requests.map((r) => r.path)).toEqual(['/hook']);
      expect(h.receiver.requests.some((r) => r.path === target)).toBe(false);
    },
  );

  // ---- R-RH-GRAMMAR -----------------------------------------------------------------

  it.each([
    ['5xx,!501', 501, false],
    ['5xx,!501', 502, true],
    ['!501,5xx', 501, false],
    ['!501,5xx', 500, true],
    ['>=500,408,429,409', 409, true],
    ['>=500,408,429,409', 404, false],
    ['408,429', 500, false],
    ['408,429', 429, true],
    ['500-503', 503, true],
    ['500-503', 504, false],
    ['>500', 500, false],
    ['>500', 501, true],
    ['<=408,5xx', 404, true],
    ['<400,5xx', 302, true],
    ['4xx', 418, true],
    ['4xx,!418', 418, false],
  ] as const)(
    'R-RH-GRAMMAR: with retryableStatuses "%s" a %i is retried: %s',
    async (list, status, retried) => {
      const { state, requests } = await h.deliver({
        preset: 'railhook',
        overrides: { retryableStatuses: list },
        respond: script(status, 200),
      });
      const rows = attemptRows(state);
      expect(rows[0]!.httpStatus).toBe(status);
      if (retried) {
        expect(state.status).toBe('succeeded');
        expect(rows.map((a) => a.httpStatus)).toEqual([status, 200]);
        expect(requests).toHaveLength(2);
        expectWait(attemptGapsMs(state)[0], 60);
      } else {
        // "A non-2xx status outside the list is treated like a non-retryable 4xx."
        expect(state.status).toBe('exhausted');
        expect(rows).toHaveLength(1);
        expect(requests).toHaveLength(1);
      }
    },
  );

  it('R-RH-GRAMMAR: an unreadable list is rejected and the error names the bad term', () => {
    let caught: unknown;
    try {
      resolvePolicy('railhook', { retryableStatuses: '429,5xy,500' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PolicyError);
    expect((caught as PolicyError).code).toBe('invalid_retryable_statuses');
    expect((caught as PolicyError).message).toContain('5xy');
  });

  // ---- R-RH-CUSTOM ------------------------------------------------------------------

  it('R-RH-CUSTOM: maxAttempts 5 with retryDelays [10, 20] repeats the last delay: waits 10,20,20,20 s x jitter', async () => {
    const { state, input, requests } = await h.deliver({
      preset: 'railhook',
      overrides: { maxAttempts: 5, retryDelays: [10, 20] },
      respond: script(503),
    });
    expect(state.status).toBe('exhausted');
    expect(attemptRows(state)).toHaveLength(5);
    const gaps = attemptGapsMs(state);
    expect(gaps).toHaveLength(4);
    [10, 20, 20, 20].forEach((base, i) => expectWait(gaps[i], base));
    expect(requests).toHaveLength(5);
    expectSignedRequests(requests, input, state);
  });

  it('R-RH-CUSTOM: maxAttempts 1 makes one attempt and dead-letters', async () => {
    const { state, requests } = await h.deliver({
      preset: 'railhook',
      overrides: { maxAttempts: 1 },
      respond: script(500),
    });
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('http_500');
    expect(attemptRows(state)).toHaveLength(1);
    expect(requests).toHaveLength(1);
  });

  it('R-RH-CUSTOM: out-of-range overrides are rejected (maxAttempts 1-20, timeoutSeconds 1-60)', () => {
    for (const bad of [
      { maxAttempts: 0 },
      { maxAttempts: 21 },
      { timeoutSeconds: 0 },
      { timeoutSeconds: 61 },
    ]) {
      expect(() => resolvePolicy('railhook', bad)).toThrow(PolicyError);
    }
    expect(resolvePolicy('railhook', { maxAttempts: 20, timeoutSeconds: 60 })).toMatchObject({
      maxAttempts: 20,
      timeoutSeconds: 60,
    });
  });

  it('R-RH-CUSTOM R-TIMEOUT: timeoutSeconds 1 ends a silent attempt as `timeout` after ~1 s, and it is retried', async () => {
    const { state, input, requests } = await h.deliver({
      preset: 'railhook',
      overrides: { timeoutSeconds: 1 },
      respond: script({ status: 0, hang: true }, 200),
    });
    expect(state.status).toBe('succeeded');
    const rows = attemptRows(state);
    expect(rows).toHaveLength(2);
    expect(rows[0]!.code).toBe('timeout');
    expect(rows[0]!.httpStatus).toBeUndefined();
    expect(rows[0]!.latencyMs).toBeGreaterThanOrEqual(900);
    expect(rows[0]!.latencyMs).toBeLessThan(5000);
    expect(rows[1]!.httpStatus).toBe(200);
    // R-DELAY: the 1 m step runs from the timeout, not from the attempt's start.
    expectWait(attemptGapsMs(state)[0], 60);
    expect(requests).toHaveLength(2);
    expectSignedRequests(requests, input, state);
  });

  it('R-TIMEOUT: a 200 whose body is still trickling in when the timeout ends is a `timeout`, not a success', async () => {
    const trickle: Responder = (_req, _i, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('.');
      let n = 0;
      const t = setInterval(() => {
        if (res.destroyed || ++n > 15) {
          clearInterval(t);
          if (!res.destroyed) res.end('done');
          return;
        }
        res.write('.');
      }, 200);
    };
    let first = true;
    const { state } = await h.deliver({
      preset: 'railhook',
      overrides: { timeoutSeconds: 1 },
      respond: (req, i, res) => {
        if (first) {
          first = false;
          return trickle(req, i, res);
        }
        res.writeHead(204).end();
      },
    });
    const rows = attemptRows(state);
    expect(rows[0]!.code).toBe('timeout');
    expect(rows[0]!.latencyMs).toBeLessThan(2500);
    expect(state.status).toBe('succeeded');
    expect(rows).toHaveLength(2);
  });

  it('R-TIMEOUT: a host that does not resolve in time is `dns_failed`, not `timeout`, and is retried', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      overrides: { timeoutSeconds: 1, maxAttempts: 2 },
      url: 'http://slow-dns.test:9/hook',
      respond: script(200),
    });
    expect(state.status).toBe('exhausted');
    expect(attemptRows(state).map((a) => a.code)).toEqual(['dns_failed', 'dns_failed']);
    expect(state.lastCode).toBe('dns_failed');
  });

  it('R-ERRCODES: a name that does not resolve is `dns_failed` and retried on schedule', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      overrides: { maxAttempts: 3 },
      url: 'http://nxdomain.test:9/hook',
      respond: script(200),
    });
    expect(state.status).toBe('exhausted');
    expect(attemptRows(state).map((a) => a.code)).toEqual(['dns_failed', 'dns_failed', 'dns_failed']);
    attemptGapsMs(state).forEach((g, i) => expectWait(g, SCHEDULE_S[i]!));
  });

  it('R-ERRCODES: a refused connection is `network_ECONNREFUSED` and retried', async () => {
    const port = await freePort();
    const { state } = await h.deliver({
      preset: 'railhook',
      overrides: { maxAttempts: 2 },
      url: `http://127.0.0.1:${port}/hook`,
      respond: script(200),
    });
    expect(state.status).toBe('exhausted');
    expect(attemptRows(state).map((a) => a.code)).toEqual(['network_ECONNREFUSED', 'network_ECONNREFUSED']);
  });

  it('R-SSRF: a resolved name is used as resolved (hook.test -> 127.0.0.1 is delivered)', async () => {
    const port = new URL(h.baseUrl).port;
    const { state, input, requests } = await h.deliver({
      preset: 'railhook',
      url: `http://hook.test:${port}/hook`,
      respond: script(204),
    });
    expect(state.status).toBe('succeeded');
    expect(requests).toHaveLength(1);
    expectSignedRequests(requests, input, state);
  });

  // ---- R-RA: Retry-After -------------------------------------------------------------

  it('R-RA: a 429 with Retry-After in delta seconds (7200) pushes the next attempt to ~2 h (max rule)', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      respond: script({ status: 429, headers: { 'retry-after': '7200' } }, 200),
    });
    expect(state.status).toBe('succeeded');
    expectAbout(attemptGapsMs(state)[0], 7200 * S);
  });

  it('R-RA: a 503 with Retry-After as an HTTP-date (now + 3 h) pushes the next attempt to ~3 h', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      respond: script(
        async () => ({
          status: 503,
          headers: { 'retry-after': new Date((await h.env.currentTimeMs()) + 3 * HOUR).toUTCString() },
        }),
        200,
      ),
    });
    expect(state.status).toBe('succeeded');
    // The date has whole seconds: up to 1 s is truncated, plus the response's own travel.
    expectAbout(attemptGapsMs(state)[0], 3 * HOUR, 2 * S);
  });

  it.each([500, 502, 408])(
    'R-RA: Retry-After on a %i is ignored (429 and 503 only): the 1 m step applies',
    async (status) => {
      const { state } = await h.deliver({
        preset: 'railhook',
        respond: script({ status, headers: { 'retry-after': '7200' } }, 200),
      });
      expect(state.status).toBe('succeeded');
      expectWait(attemptGapsMs(state)[0], 60);
    },
  );

  it('R-RA: Retry-After is capped at 21600 s (WEBHOOK_RETRY_AFTER_MAX_SECONDS)', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      respond: script({ status: 429, headers: { 'retry-after': '172800' } }, 200),
    });
    expect(state.status).toBe('succeeded');
    expectAbout(attemptGapsMs(state)[0], 21600 * S);
  });

  it('R-RA: an HTTP-date far in the future is capped at 21600 s too', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      respond: script(
        async () => ({
          status: 503,
          headers: { 'retry-after': new Date((await h.env.currentTimeMs()) + 10 * 24 * HOUR).toUTCString() },
        }),
        200,
      ),
    });
    expect(state.status).toBe('succeeded');
    expectAbout(attemptGapsMs(state)[0], 21600 * S);
  });

  it('R-RA: max rule - a shorter Retry-After (30 s) never shortens the 5 m step', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      respond: script(500, { status: 503, headers: { 'retry-after': '30' } }, 200),
    });
    expect(state.status).toBe('succeeded');
    const gaps = attemptGapsMs(state);
    expectWait(gaps[0], 60);
    expectWait(gaps[1], 300);
  });

  it('R-RA: the cap limits the header, never the schedule - a capped header after the 6 h step still waits the 24 h step', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      respond: script(500, 500, 500, 500, 500, { status: 429, headers: { 'retry-after': '999999' } }, 200),
    });
    expect(state.status).toBe('succeeded');
    const gaps = attemptGapsMs(state);
    expect(gaps).toHaveLength(6);
    // 24 h x [0.5, 1.5] is at least 12 h, above the 6 h cap: the schedule wins.
    expectWait(gaps[5], 86400);
  });

  it.each([
    ['0', () => '0'],
    ['a past HTTP-date', (now: number) => new Date(now - HOUR).toUTCString()],
    ['garbage', () => 'soon, please'],
    ['a negative number', () => '-120'],
    ['a fraction', () => '1.5'],
  ] as const)('R-RA: Retry-After of %s on a 429 leaves the 1 m step as it is', async (_label, value) => {
    const { state } = await h.deliver({
      preset: 'railhook',
      respond: script(
        async () => ({ status: 429, headers: { 'retry-after': value(await h.env.currentTimeMs()) } }),
        200,
      ),
    });
    expect(state.status).toBe('succeeded');
    expectWait(attemptGapsMs(state)[0], 60);
  });

  it('R-RA: an accepted Retry-After adds no attempt (a 429 on the last attempt dead-letters)', async () => {
    const { state, requests } = await h.deliver({
      preset: 'railhook',
      overrides: { maxAttempts: 2 },
      respond: script({ status: 429, headers: { 'retry-after': '600' } }),
    });
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('http_429');
    expect(attemptRows(state)).toHaveLength(2);
    expect(requests).toHaveLength(2);
    expectAbout(attemptGapsMs(state)[0], 600 * S);
  });

  // ---- R-RH-LIFETIME ----------------------------------------------------------------

  it('R-RH-LIFETIME: a schedule that cannot fit ends `exhausted` (lifetime_exceeded) 96 h after creation, attempts left unused', async () => {
    // Delays 14 h, 14 h, 7 d, each x [0.5, 1.5]: attempt 4 could come no earlier than
    // 0.5 x (14 + 14 + 168) h = 98 h, so the lifetime always ends it first.
    const { handle, input } = await h.start({
      preset: 'railhook',
      overrides: { maxAttempts: 4, retryDelays: LONG_DELAYS },
      respond: script(500),
    });
    const created = Date.parse(input.createdAt);
    const deadline = created + 96 * HOUR;
    await h.env.sleep(deadline - MIN - (await h.env.currentTimeMs()));
    const before = await query(handle);
    // (toMatchObject prints the whole state if this ever fails.)
    expect(before).toMatchObject({ status: 'pending', attemptsInRound: 3 });
    await h.env.sleep(2 * MIN);
    const after = await query(handle);
    expect(after.status).toBe('exhausted');
    expect(after.lastCode).toBe('lifetime_exceeded');
    expect(after.attemptsInRound).toBe(3);
    expect(attemptRows(after).every((a) => Date.parse(a.startedAt) < deadline)).toBe(true);
    expect(requestsOf(h.receiver, input)).toHaveLength(3);
    await handle.terminate('test done');
  });

  it('R-RH-LIFETIME: the default schedule at maximum jitter fits 96 h; the worker refuses one that does not (24 h cap)', () => {
    expect(() => assertScheduleFitsLifetime(resolvePolicy('railhook'))).not.toThrow();
    const short = applyOperatorSettings(resolvePolicy('railhook'), { lifetimeHours: 24 });
    expect(() => assertScheduleFitsLifetime(short)).toThrow(PolicyError);
  });

  it('R-RH-LIFETIME: DELIVERY_ESCALATION_HARD_CAP_HOURS moves the cap (12 h: the 6 h/24 h steps are cut at 12 h)', async () => {
    const policy = applyOperatorSettings(resolvePolicy('railhook'), { lifetimeHours: 12 });
    const { state, input } = await deliverWithPolicy({ preset: 'railhook', respond: script(500) }, policy);
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('lifetime_exceeded');
    const rows = attemptRows(state);
    // Attempt 6 comes by 1.5 x 81 m + 1.5 x 6 h < 12 h; attempt 7 is at least 12 h after it.
    expect(rows).toHaveLength(6);
    const deadline = Date.parse(input.createdAt) + 12 * HOUR;
    expect(rows.every((a) => Date.parse(a.startedAt) < deadline)).toBe(true);
  });

  it('R-RA: WEBHOOK_RETRY_AFTER_MAX_SECONDS=0 ignores the header (the 1 m step applies to a 429 asking for 2 h)', async () => {
    const policy = applyOperatorSettings(resolvePolicy('railhook'), { retryAfterMaxSeconds: 0 });
    const { state } = await deliverWithPolicy(
      { preset: 'railhook', respond: script({ status: 429, headers: { 'retry-after': '7200' } }, 200) },
      policy,
    );
    expect(state.status).toBe('succeeded');
    expectWait(attemptGapsMs(state)[0], 60);
  });

  it('R-RA: WEBHOOK_RETRY_AFTER_MAX_SECONDS=600 caps a 2 h Retry-After at 10 m', async () => {
    const policy = applyOperatorSettings(resolvePolicy('railhook'), { retryAfterMaxSeconds: 600 });
    const { state } = await deliverWithPolicy(
      { preset: 'railhook', respond: script({ status: 503, headers: { 'retry-after': '7200' } }, 200) },
      policy,
    );
    expect(state.status).toBe('succeeded');
    expectAbout(attemptGapsMs(state)[0], 600 * S);
  });

  it('R-RH-INBOUND: the inbound forward policy makes 5 attempts, waits 1m,5m,15m,1h x 0.5-1.5, 24 h lifetime', async () => {
    const policy = resolvePolicy('railhook', undefined, 'inbound');
    expect(policy.lifetimeSeconds).toBe(24 * 3600);
    const { state, input, requests } = await deliverWithPolicy(
      { preset: 'railhook', respond: script(502) },
      policy,
    );
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('http_502');
    expect(attemptRows(state)).toHaveLength(5);
    attemptGapsMs(state).forEach((g, i) => expectWait(g, [60, 300, 900, 3600][i]!));
    expect(requests).toHaveLength(5);
    expectSignedRequests(requests, input, state);
  });

  // ---- R-SSRF / R-STATUS `failed` --------------------------------------------------

  it('R-SSRF R-STATUS: a private address (127.0.0.2) ends `failed` with no attempt spent and nothing sent', async () => {
    const { state, requests } = await h.deliver({
      preset: 'railhook',
      url: `${privateBase}/hook`,
      respond: script(200),
    });
    expect(state.status).toBe('failed');
    expect(state.lastCode).toBe('private_address');
    expect(state.attemptsInRound).toBe(0);
    expect(attemptRows(state)).toHaveLength(0);
    expect(state.attempts).toHaveLength(1);
    expect(state.attempts[0]).toMatchObject({ kind: 'refused', code: 'private_address' });
    expect(requests).toHaveLength(0);
    expect(privateReceiver.requests).toHaveLength(0);
  });

  it('R-SSRF: a name resolving to a private address (internal.test -> 127.0.0.2) is refused the same way', async () => {
    const port = new URL(privateBase).port;
    const { state } = await h.deliver({
      preset: 'railhook',
      url: `http://internal.test:${port}/hook`,
      respond: script(200),
    });
    expect(state.status).toBe('failed');
    expect(state.attempts.map((a) => [a.kind, a.code])).toEqual([['refused', 'private_address']]);
    expect(privateReceiver.requests).toHaveLength(0);
  });

  it('R-SSRF: IPv6 loopback [::1] is refused with private_address, no attempt', async () => {
    const port = await freePort();
    const { state } = await h.deliver({
      preset: 'railhook',
      url: `http://[::1]:${port}/hook`,
      respond: script(200),
    });
    expect(state.status).toBe('failed');
    expect(state.attempts.map((a) => [a.kind, a.code])).toEqual([['refused', 'private_address']]);
  });

  it.each([
    ['http://example.invalid/hook', 'not_https'],
    ['https://example.invalid:8080/hook', 'port_not_allowed'],
    ['https://user:secret@example.invalid/hook', 'userinfo_not_allowed'],
    ['https://example.invalid/hook#frag', 'fragment_not_allowed'],
  ])(
    'R-STATUS R-ERRCODES: a URL rejected at send time (%s) ends `failed` (%s), no attempt',
    async (url, code) => {
      const { state } = await h.deliver({ preset: 'railhook', url, respond: script(200) });
      expect(state.status).toBe('failed');
      expect(state.lastCode).toBe(code);
      expect(state.attempts.map((a) => [a.kind, a.code])).toEqual([['refused', code]]);
    },
  );

  // ---- R-STATUS / R-HDR / R-SIGN / R-RESP -------------------------------------------

  it('R-STATUS: pending while waiting, then succeeded; the HeraldStatus search attribute follows', async () => {
    const { handle, input } = await h.start({ preset: 'railhook', respond: script(500, 200) });
    const waiting = await pollUntil(handle, (s) => s.attemptsInRound === 1 && s.status === 'pending');
    expect(waiting.nextAttemptAt).toBeDefined();
    expectWait(Date.parse(waiting.nextAttemptAt!) - Date.parse(attemptRows(waiting)[0]!.finishedAt), 60);
    const done = (await handle.result()) as DeliveryState;
    expect(done.status).toBe('succeeded');
    const desc = await handle.describe();
    expect(desc.typedSearchAttributes.get(SA_STATUS)).toBe('succeeded');
    expect(requestsOf(h.receiver, input)).toHaveLength(2);
  });

  it('R-HDR: the 2xx response body is ignored for classification', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      respond: script({ status: 200, body: '{"ok":false,"error":"failed, please retry"}' }),
    });
    expect(state.status).toBe('succeeded');
    expect(attemptRows(state)).toHaveLength(1);
  });

  it('R-SIGN: during secret rotation both signatures are sent and each verifies; the body is byte-identical', async () => {
    const secrets = [generateSecret(), generateSecret()];
    const body = JSON.stringify({ type: 'invoice.paid', data: { amount: '1 234,56 ₴', note: 'Оплачено ✓' } });
    const { state, input, requests } = await h.deliver({
      preset: 'railhook',
      secrets,
      body,
      respond: script(500, 200),
    });
    expect(state.status).toBe('succeeded');
    expect(requests).toHaveLength(2);
    for (const r of requests) expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expectSignedRequests(requests, input, state);
  });

  it('R-RESP: the log keeps status, code, latency and the first 512 bytes of the response body', async () => {
    const { state } = await h.deliver({
      preset: 'railhook',
      overrides: { maxAttempts: 1 },
      respond: script({ status: 500, body: 'x'.repeat(2000) }),
    });
    const row = attemptRows(state)[0]!;
    expect(row).toMatchObject({ httpStatus: 500, code: 'http_500' });
    expect(row.responseBody).toBe('x'.repeat(512));
    expect(row.latencyMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(row.finishedAt)).toBeGreaterThanOrEqual(Date.parse(row.startedAt));
  });

  // ---- R-RH-DEFER ------------------------------------------------------------------

  it('R-RH-DEFER: a deferral (rate limit / circuit open) spends no attempt and does not advance the schedule', async () => {
    const deliveryId = `dlv_rh_defer_${Math.random().toString(36).slice(2, 8)}`;
    let deferred = 0;
    gatePlans.set(deliveryId, async (req) => {
      if (req.attempt === 2 && deferred < 2) {
        deferred++;
        return { code: 'rate_limited', retryInMs: 10 * MIN };
      }
      return undefined;
    });
    const { state, input, requests } = await h.deliver({
      preset: 'railhook',
      deliveryId,
      respond: script(500, 500, 200),
    });
    gatePlans.delete(deliveryId);
    expect(state.status).toBe('succeeded');
    expect(state.attempts.map((a) => [a.kind, a.attempt])).toEqual([
      ['attempt', 1],
      ['deferral', 2],
      ['deferral', 2],
      ['attempt', 2],
      ['attempt', 3],
    ]);
    expect(state.attempts.filter((a) => a.kind === 'deferral').every((a) => a.code === 'rate_limited')).toBe(
      true,
    );
    // Deferrals wait their own time; the retry after attempt 2 is still the 5 m step.
    const [d1, d2] = state.attempts.filter((a) => a.kind === 'deferral');
    expectAbout(Date.parse(d2!.startedAt) - Date.parse(d1!.finishedAt), 10 * MIN);
    expectWait(attemptGapsMs(state)[1], 300);
    expect(requests).toHaveLength(3);
    expectSignedRequests(requests, input, state);
  });

  it('R-RH-DEFER: deferrals do not use up maxAttempts (maxAttempts 1, three deferrals, then success)', async () => {
    const deliveryId = `dlv_rh_defer1_${Math.random().toString(36).slice(2, 8)}`;
    let deferred = 0;
    gatePlans.set(deliveryId, async () =>
      deferred++ < 3 ? { code: 'rate_limited', retryInMs: MIN } : undefined,
    );
    const { state, requests } = await h.deliver({
      preset: 'railhook',
      deliveryId,
      overrides: { maxAttempts: 1 },
      respond: script(200),
    });
    gatePlans.delete(deliveryId);
    expect(state.status).toBe('succeeded');
    expect(state.attempts.map((a) => a.kind)).toEqual(['deferral', 'deferral', 'deferral', 'attempt']);
    expect(state.attemptsInRound).toBe(1);
    expect(requests).toHaveLength(1);
  });

  // ---- R-RH-DLQ ---------------------------------------------------------------------

  it('R-RH-DLQ: retry from the dead-letter list: same delivery, history kept, 3 more attempts (immediate, ~1 m, ~5 m), same ids', async () => {
    const { handle, input } = await h.start({ preset: 'railhook', respond: script(400, 500) });
    const dead = await h.waitForStatus(handle, ['exhausted']);
    expect(dead.lastCode).toBe('http_400');
    expect(attemptRows(dead)).toHaveLength(1);

    const updateAt = await h.env.currentTimeMs();
    const returned = await handle.executeUpdate(retryDeadLetterUpdate);
    expect(returned.deliveryId).toBe(input.deliveryId);
    const back = await query(handle);
    expect(['pending', 'processing']).toContain(back.status);

    const final = (await handle.result()) as DeliveryState;
    expect(final.deliveryId).toBe(input.deliveryId);
    expect(final.status).toBe('exhausted');
    expect(final.lastCode).toBe('http_500');
    const rows = attemptRows(final);
    expect(rows).toHaveLength(4);
    // History kept: the original attempt is still first, unchanged.
    expect(rows[0]).toMatchObject({
      httpStatus: 400,
      code: 'http_400',
      startedAt: attemptRows(dead)[0]!.startedAt,
    });
    expect(rows.slice(1).map((a) => a.httpStatus)).toEqual([500, 500, 500]);
    // Attempt numbers keep increasing; the header matches the log.
    const nums = rows.map((a) => a.attempt);
    expect(new Set(nums).size).toBe(4);
    expect([...nums].sort((a, b) => a - b)).toEqual(nums);
    // First new attempt immediate; then the schedule's first delays.
    expectAbout(Date.parse(rows[1]!.startedAt) - updateAt, 0, 0, IMMEDIATE);
    const gaps = attemptGapsMs(final);
    expectWait(gaps[1], 60);
    expectWait(gaps[2], 300);

    const reqs = requestsOf(h.receiver, input);
    expect(reqs).toHaveLength(4);
    expectSignedRequests(reqs, input, final);
  });

  it('R-RH-DLQ R-RH-LIFETIME: a delivery that died of lifetime_exceeded gets its 3 attempts after a retry (lifetime restarts)', async () => {
    const { handle, input } = await h.start({
      preset: 'railhook',
      overrides: { maxAttempts: 4, retryDelays: LONG_DELAYS },
      respond: script(500),
    });
    const dead = await h.waitForStatus(handle, ['exhausted'], HOUR);
    expect(dead).toMatchObject({ lastCode: 'lifetime_exceeded', attemptsInRound: 3 });

    const updateAt = await h.env.currentTimeMs();
    expect(updateAt - Date.parse(input.createdAt)).toBeGreaterThan(96 * HOUR);
    await handle.executeUpdate(retryDeadLetterUpdate);
    const final = (await handle.result()) as DeliveryState;
    expect(final.status).toBe('exhausted');
    expect(final.lastCode).toBe('http_500');
    const rows = attemptRows(final);
    expect(rows).toHaveLength(6);
    expectAbout(Date.parse(rows[3]!.startedAt) - updateAt, 0, 0, IMMEDIATE);
    const gaps = attemptGapsMs(final);
    // The schedule restarts from its first delays (14 h, 14 h x jitter): all 3 attempts
    // fit in the restarted 96 h (at most 1.5 x 28 h = 42 h).
    expectWait(gaps[3], LONG_DELAYS[0]!);
    expectWait(gaps[4], LONG_DELAYS[1]!);
    expect(requestsOf(h.receiver, input)).toHaveLength(6);
  });

  it('R-RH-DLQ: retrying a delivery that is waiting for its next attempt is rejected (not_a_dead_letter)', async () => {
    const { handle, input } = await h.start({ preset: 'railhook', respond: script(500) });
    await pollUntil(handle, (s) => s.attemptsInRound === 1 && s.status === 'pending');
    expect(await updateFailureType(handle.executeUpdate(retryDeadLetterUpdate))).toBe('not_a_dead_letter');
    const s = await query(handle);
    expect(s.status).toBe('pending');
    expect(s.attemptBudget).toBe(7);
    await handle.terminate('test done');
    expect(requestsOf(h.receiver, input)).toHaveLength(1);
  });

  it('R-RH-DLQ: retrying a delivery that succeeded is rejected (not_a_dead_letter)', async () => {
    const { handle } = await h.start({ preset: 'railhook', respond: script(200) });
    await h.waitForStatus(handle, ['succeeded']);
    expect(await updateFailureType(handle.executeUpdate(retryDeadLetterUpdate))).toBe('not_a_dead_letter');
    await handle.terminate('test done');
  });

  it('R-RH-DLQ R-STATUS: a `failed` delivery (private address) is not a dead letter either', async () => {
    const { handle } = await h.start({
      preset: 'railhook',
      url: `${privateBase}/hook`,
      respond: script(200),
    });
    await h.waitForStatus(handle, ['failed']);
    expect(await updateFailureType(handle.executeUpdate(retryDeadLetterUpdate))).toBe('not_a_dead_letter');
    await handle.terminate('test done');
    expect(privateReceiver.requests).toHaveLength(0);
  });
});

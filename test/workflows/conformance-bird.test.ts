// Conformance suite for the `bird` preset: every rule of SPEC §3's `bird` column, R-BIRD-REPLAY
// at the delivery level, and the §2 rules that apply, each proven end to end (time-skipping
// Temporal server, real worker, real HTTP receiver on 127.0.0.1, the preset's real schedule).
import { ApplicationFailure, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayWindowSeconds } from '../../src/policy/replay-window.js';
import type { DeliveryState } from '../../src/shared/delivery-types.js';
import { deliveryStateQuery, replayDeliveryUpdate } from '../../src/shared/messages.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { DeliveryHarness, attemptGapsMs } from '../helpers/delivery-harness.js';
import { freePort } from '../helpers/ports.js';
import { Receiver, type Responder } from '../helpers/receiver.js';

const PRESET = 'bird' as const;
/** SPEC §3: delays after attempts 1..7, in seconds. */
const SCHEDULE_S = [5, 300, 1800, 7200, 18000, 36000, 36000];
const MAX_ATTEMPTS = 8;
const JITTER = { min: 0.8, max: 1.2 };
const RA_CAP_MS = 6 * 3_600_000;
/** After a 429 or a timeout the next delay is at least this long (SPEC §3, assumed). */
const FLOOR_MS = 60_000;
const DELIVERY_ID_HEADER = 'webhook-delivery-id';
/** Real time an attempt and the workflow tasks around it may add to a gap. */
const SLACK_MS = 1000;
const HOUR_MS = 3_600_000;

// ---------------------------------------------------------------------------------------
// Helpers (kept local: each conformance file stands alone).

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}
/**
 * `hang`: never answers; `reset`: destroys the socket; `stall`: sends 200 headers and part of
 * the body, then nothing; `trickle`: 200 headers, then a few body bytes every 200 ms, forever.
 */
type Step = number | Reply | 'hang' | 'reset' | 'stall' | 'trickle' | (() => Promise<Reply>);

/**
 * Answers this delivery's n-th request with steps[n] (the last step repeats). It counts
 * its own calls, so it does not depend on what earlier tests sent to the shared receiver.
 */
function script(...steps: Step[]): Responder {
  let n = 0;
  return async (_req, _i, res) => {
    const step = steps[Math.min(n++, steps.length - 1)]!;
    if (step === 'hang') return; // never answers
    if (step === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (step === 'stall' || step === 'trickle') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial ');
      if (step === 'trickle') {
        const timer = setInterval(() => res.write('more '), 200);
        res.on('close', () => clearInterval(timer));
      }
      return;
    }
    const reply =
      typeof step === 'number' ? { status: step } : typeof step === 'function' ? await step() : step;
    res.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
  };
}

const ra = (status: number, value: string): Reply => ({ status, headers: { 'retry-after': value } });
const attemptsOf = (s: DeliveryState) => s.attempts.filter((a) => a.kind === 'attempt');
const codesOf = (s: DeliveryState) => attemptsOf(s).map((a) => a.code);
const httpDate = (ms: number) => new Date(ms).toUTCString();
const sleepReal = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectWithin(gapMs: number, loMs: number, hiMs: number, what: string) {
  expect(gapMs, `${what}: ${gapMs} ms >= ${loMs}`).toBeGreaterThanOrEqual(Math.floor(loMs) - 2);
  expect(gapMs, `${what}: ${gapMs} ms <= ${hiMs} + slack`).toBeLessThanOrEqual(Math.ceil(hiMs) + SLACK_MS);
}

/** The gap is the schedule step `stepS` times a factor inside the jitter range. */
function expectStep(gapMs: number, stepS: number, what: string) {
  expectWithin(gapMs, stepS * 1000 * JITTER.min, stepS * 1000 * JITTER.max, what);
}

function expectSchedule(state: DeliveryState, steps: number[] = SCHEDULE_S) {
  const gaps = attemptGapsMs(state);
  expect(gaps).toHaveLength(steps.length);
  gaps.forEach((g, i) => expectStep(g, steps[i]!, `gap after attempt ${i + 1}`));
}

async function pollState(
  handle: WorkflowHandle,
  pred: (s: DeliveryState) => boolean,
  timeoutMs = 15_000,
): Promise<DeliveryState> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await handle.query(deliveryStateQuery);
    if (pred(s)) return s;
    if (Date.now() > end) throw new Error(`state never matched; last: ${JSON.stringify(s)}`);
    await sleepReal(20);
  }
}

async function updateError(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

// ---------------------------------------------------------------------------------------

describe(`conformance: ${PRESET} preset`, () => {
  let h: DeliveryHarness;
  /** A loopback receiver off the allowlist (127.0.0.1/32 only): R-SSRF must never reach it. */
  const priv = new Receiver();
  let privPort = 0;
  /** Same on ::1, when this machine has IPv6 loopback. */
  const priv6 = new Receiver();
  let priv6Base: string | undefined;

  beforeAll(async () => {
    h = await DeliveryHarness.create({
      dns: {
        'hook.test': ['127.0.0.1'],
        'private.test': ['127.0.0.2'],
        'mapped.test': ['::ffff:127.0.0.2'],
        'hang.test': 'hang',
      },
    });
    privPort = Number(new URL(await priv.start('127.0.0.2')).port);
    priv6Base = await priv6.start('::1').catch(() => undefined);
  });
  afterAll(async () => {
    await priv.stop();
    await priv6.stop();
    await h?.close();
  });

  // ---- attempts, schedule, jitter -----------------------------------------------------

  it('R-PRESET attempts & delays: 8 attempts, 5s 5m 30m 2h 5h 10h 10h each within 0.8-1.2, then exhausted', async () => {
    const { state, requests } = await h.deliver({ preset: PRESET, respond: script(500) });
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('http_500');
    expect(attemptsOf(state).map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(requests).toHaveLength(MAX_ATTEMPTS);
    expectSchedule(state);
  });

  it('R-JITTER: each delay gets its own random factor, and two deliveries do not retry in lockstep', async () => {
    const a = await h.deliver({ preset: PRESET, overrides: { maxAttempts: 5 }, respond: script(503) });
    const b = await h.deliver({ preset: PRESET, overrides: { maxAttempts: 5 }, respond: script(503) });
    const factors = (s: DeliveryState) => attemptGapsMs(s).map((g, i) => g / (SCHEDULE_S[i]! * 1000));
    const fa = factors(a.state);
    const fb = factors(b.state);
    for (const f of [...fa, ...fb]) {
      expect(f).toBeGreaterThanOrEqual(JITTER.min - 0.001);
      expect(f).toBeLessThan(JITTER.max + 0.001 + SLACK_MS / 5000);
    }
    // Raw factors of the long steps: equal only if two gaps matched to the millisecond.
    const long = (f: number[]) => f.slice(1);
    expect(new Set(long(fa)).size).toBe(3);
    expect(long(fa)).not.toEqual(long(fb));
  });

  // ---- status and classification: every non-2xx is retried -------------------------------

  it('R-STATUS: pending while waiting, processing while an attempt is in flight, succeeded at the end', async () => {
    const { handle } = await h.start({
      preset: PRESET,
      overrides: { timeoutSeconds: 2 },
      respond: script('hang', 200),
    });
    const processing = await pollState(handle, (s) => s.status === 'processing');
    expect(processing.attempts).toHaveLength(0);
    const waiting = await pollState(handle, (s) => s.attempts.length === 1);
    expect(waiting.status).toBe('pending');
    expect(waiting.lastCode).toBe('timeout');
    // After a timeout the 5 s step is raised to the 60 s floor.
    const next = Date.parse(waiting.nextAttemptAt!) - Date.parse(waiting.attempts[0]!.finishedAt);
    expectWithin(next, FLOOR_MS, FLOOR_MS, 'announced next attempt');
    const final = (await handle.result()) as DeliveryState;
    expect(final.status).toBe('succeeded');
    expect(codesOf(final)).toEqual(['timeout', undefined]);
  });

  it('R-HDR: a 2xx is success whatever its body says (the body is not classified)', async () => {
    const a = await h.deliver({
      preset: PRESET,
      respond: script({ status: 200, body: '{"ok":false,"error":"failed","status":500}' }),
    });
    expect(a.state.status).toBe('succeeded');
    expect(attemptsOf(a.state)).toHaveLength(1);
    expect(a.state.attempts[0]!.httpStatus).toBe(200);
    expect(a.state.attempts[0]!.code).toBeUndefined();
    const b = await h.deliver({ preset: PRESET, respond: script({ status: 201, body: 'error' }) });
    expect(b.state.status).toBe('succeeded');
    expect(b.requests).toHaveLength(1);
  });

  it('R-NOREDIR: a 3xx is a failed attempt (`redirect_not_allowed`), retried, and never followed', async () => {
    const elsewhere = `/moved-${Math.random().toString(36).slice(2)}`;
    const loc = { location: `${h.baseUrl}${elsewhere}` };
    const { state, requests } = await h.deliver({
      preset: PRESET,
      respond: script(
        { status: 301, headers: loc },
        { status: 302, headers: loc },
        { status: 307, headers: loc },
        { status: 308, headers: loc },
        200,
      ),
    });
    expect(state.status).toBe('succeeded');
    expect(attemptsOf(state).map((a) => [a.httpStatus, a.code])).toEqual([
      [301, 'redirect_not_allowed'],
      [302, 'redirect_not_allowed'],
      [307, 'redirect_not_allowed'],
      [308, 'redirect_not_allowed'],
      [200, undefined],
    ]);
    expectSchedule(state, SCHEDULE_S.slice(0, 4));
    expect(requests.map((r) => r.path)).toEqual(Array(5).fill('/hook'));
    expect(h.receiver.requests.some((r) => r.path === elsewhere)).toBe(false);
  });

  it('R-PRESET retried responses: every 4xx is retried on schedule', async () => {
    // 429 comes after attempt 2, whose 5 m step is already above bird's 60 s floor.
    const { state, requests } = await h.deliver({
      preset: PRESET,
      respond: script(400, 429, 401, 403, 404, 408, 422, 200),
    });
    expect(state.status).toBe('succeeded');
    expect(codesOf(state)).toEqual([
      'http_400',
      'http_429',
      'http_401',
      'http_403',
      'http_404',
      'http_408',
      'http_422',
      undefined,
    ]);
    expect(requests).toHaveLength(8);
    expectSchedule(state);
  });

  it('R-PRESET non-retried response: none: a 410 is retried like any failure (code `gone`) until exhausted', async () => {
    const { state, requests } = await h.deliver({ preset: PRESET, respond: script(410) });
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('gone');
    expect(attemptsOf(state).map((a) => [a.httpStatus, a.code])).toEqual(
      Array(MAX_ATTEMPTS).fill([410, 'gone']),
    );
    expect(requests).toHaveLength(MAX_ATTEMPTS);
    expectSchedule(state);
  });

  it('R-PRESET retried responses: 5xx are retried until the 8 attempts are used up', async () => {
    const { state } = await h.deliver({
      preset: PRESET,
      respond: script(500, 501, 502, 503, 504, 505, 507, 599),
    });
    expect(state.status).toBe('exhausted');
    expect(codesOf(state)).toEqual([
      'http_500',
      'http_501',
      'http_502',
      'http_503',
      'http_504',
      'http_505',
      'http_507',
      'http_599',
    ]);
    expectSchedule(state);
  });

  it('R-PRESET R-RA: after a 429 the next delay is at least 60 s, even with a shorter or zero Retry-After', async () => {
    for (const first of [429, ra(429, '10'), ra(429, '0')]) {
      const { state } = await h.deliver({ preset: PRESET, respond: script(first, 200) });
      expect(state.status).toBe('succeeded');
      expect(codesOf(state)).toEqual(['http_429', undefined]);
      // The 5 s step (4-6 s) is raised to exactly the floor.
      expectWithin(attemptGapsMs(state)[0]!, FLOOR_MS, FLOOR_MS, `after ${JSON.stringify(first)}`);
    }
    // The floor belongs to 429 and timeouts only: a 500 or a 503 keeps the 5 s step.
    const other = await h.deliver({ preset: PRESET, respond: script(500, ra(503, '0'), 200) });
    expectSchedule(other.state, SCHEDULE_S.slice(0, 2));
  });

  // ---- transport failures ---------------------------------------------------------------

  it('R-TIMEOUT R-DELAY: no response within the timeout is `timeout`, retried, and the next delay is at least 60 s', async () => {
    const { state, requests } = await h.deliver({
      preset: PRESET,
      overrides: { timeoutSeconds: 1 },
      respond: script('hang', 'hang', 200),
    });
    expect(state.status).toBe('succeeded');
    expect(codesOf(state)).toEqual(['timeout', 'timeout', undefined]);
    expect(requests).toHaveLength(3);
    for (const a of attemptsOf(state).slice(0, 2)) {
      expect(a.latencyMs).toBeGreaterThanOrEqual(950);
      expect(a.latencyMs).toBeLessThan(5000);
    }
    const gaps = attemptGapsMs(state);
    // max(5 s step, 60 s floor), measured from the timeout; then the 5 m step (above the floor).
    expectWithin(gaps[0]!, FLOOR_MS, FLOOR_MS, 'after the first timeout');
    expectStep(gaps[1]!, SCHEDULE_S[1]!, 'after the second timeout');
  });

  it('R-TIMEOUT: a 200 whose body does not complete within the timeout is `timeout`, not a success', async () => {
    const { state, requests } = await h.deliver({
      preset: PRESET,
      overrides: { timeoutSeconds: 1 },
      respond: script('stall', 'trickle', 200),
    });
    expect(state.status).toBe('succeeded');
    expect(codesOf(state)).toEqual(['timeout', 'timeout', undefined]);
    expect(attemptsOf(state).map((a) => a.httpStatus)).toEqual([undefined, undefined, 200]);
    expect(requests).toHaveLength(3);
    const gaps = attemptGapsMs(state);
    expectWithin(gaps[0]!, FLOOR_MS, FLOOR_MS, 'after the first timeout');
    expectStep(gaps[1]!, SCHEDULE_S[1]!, 'after the second timeout');
  });

  it('R-TIMEOUT: a DNS lookup that never answers is `dns_failed`, not `timeout` (no 60 s floor), and is retried', async () => {
    const { state, requests } = await h.deliver({
      preset: PRESET,
      url: 'http://hang.test:8080/hook',
      overrides: { timeoutSeconds: 1, maxAttempts: 2 },
    });
    expect(state.status).toBe('exhausted');
    expect(codesOf(state)).toEqual(['dns_failed', 'dns_failed']);
    expect(requests).toHaveLength(0);
    expectSchedule(state, SCHEDULE_S.slice(0, 1));
  });

  it('R-ERRCODES: a host that does not resolve is `dns_failed`, retried on the full schedule', async () => {
    const { state, requests } = await h.deliver({ preset: PRESET, url: 'https://no-such-host.test/hook' });
    expect(state.status).toBe('exhausted');
    expect(codesOf(state)).toEqual(Array(MAX_ATTEMPTS).fill('dns_failed'));
    expect(requests).toHaveLength(0);
    expectSchedule(state);
  });

  it('R-ERRCODES: a closed port is `network_ECONNREFUSED`, retried on the full schedule', async () => {
    const port = await freePort();
    const { state } = await h.deliver({ preset: PRESET, url: `http://127.0.0.1:${port}/hook` });
    expect(state.status).toBe('exhausted');
    expect(codesOf(state)).toEqual(Array(MAX_ATTEMPTS).fill('network_ECONNREFUSED'));
    expectSchedule(state);
  });

  it('R-ERRCODES: a receiver that drops the connection is a `network_*` failure, retried', async () => {
    const { state, requests } = await h.deliver({ preset: PRESET, respond: script('reset', 'reset', 200) });
    expect(state.status).toBe('succeeded');
    const codes = codesOf(state);
    expect(codes).toHaveLength(3);
    for (const c of codes.slice(0, 2)) expect(c).toMatch(/^network_[A-Z0-9_]+$/);
    expect(requests).toHaveLength(3);
    expectSchedule(state, SCHEDULE_S.slice(0, 2));
  });

  // ---- R-SSRF / R-URL (at send time: as standard) -------------------------------------------

  it('R-SSRF: 127.0.0.2 (loopback, off the allowlist) is refused at send time with `private_address`, nothing sent, retried', async () => {
    const before = priv.requests.length;
    const { state } = await h.deliver({ preset: PRESET, url: `http://127.0.0.2:${privPort}/hook` });
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('private_address');
    expect(codesOf(state)).toEqual(Array(MAX_ATTEMPTS).fill('private_address'));
    expectSchedule(state);
    expect(priv.requests.length - before).toBe(0);
  });

  it('R-SSRF: ::1 is refused with `private_address`, nothing sent, retried on schedule', async (ctx) => {
    if (!priv6Base) return ctx.skip();
    const before = priv6.requests.length;
    const { state } = await h.deliver({ preset: PRESET, url: `${priv6Base}/hook` });
    expect(state.status).toBe('exhausted');
    expect(codesOf(state)).toEqual(Array(MAX_ATTEMPTS).fill('private_address'));
    expectSchedule(state);
    expect(priv6.requests.length - before).toBe(0);
  });

  it('R-SSRF: a hostname that resolves to 127.0.0.2 is refused after the lookup, nothing sent, retried', async () => {
    const before = priv.requests.length;
    const { state } = await h.deliver({ preset: PRESET, url: `http://private.test:${privPort}/hook` });
    expect(state.status).toBe('exhausted');
    expect(codesOf(state)).toEqual(Array(MAX_ATTEMPTS).fill('private_address'));
    expectSchedule(state);
    expect(priv.requests.length - before).toBe(0);
  });

  it('R-SSRF: a hostname that resolves to IPv4-mapped IPv6 ::ffff:127.0.0.2 is refused too', async () => {
    const before = priv.requests.length;
    const { state } = await h.deliver({
      preset: PRESET,
      url: `http://mapped.test:${privPort}/hook`,
      overrides: { maxAttempts: 3 },
    });
    expect(codesOf(state)).toEqual(Array(3).fill('private_address'));
    expect(priv.requests.length - before).toBe(0);
  });

  it('R-SSRF: a hostname resolving to an allowlisted address is sent to that resolved address', async () => {
    const port = new URL(h.baseUrl).port;
    const { state, requests } = await h.deliver({
      preset: PRESET,
      url: `http://hook.test:${port}/hook`,
      respond: script(204),
    });
    expect(state.status).toBe('succeeded');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.headers.host).toBe(`hook.test:${port}`);
  });

  it('R-URL: a URL that fails the shape check at send time is a failed attempt with its code, nothing sent, retried', async () => {
    const port = new URL(h.baseUrl).port;
    const cases: Array<[string, string]> = [
      [`http://user:pw@127.0.0.1:${port}/hook`, 'userinfo_not_allowed'],
      [`http://127.0.0.1:${port}/hook#frag`, 'fragment_not_allowed'],
      [`ftp://127.0.0.1:${port}/hook`, 'not_https'],
      ['https://receiver.example:9999/hook', 'port_not_allowed'],
    ];
    const before = h.receiver.requests.length;
    for (const [url, code] of cases) {
      const { state } = await h.deliver({ preset: PRESET, url, overrides: { maxAttempts: 3 } });
      expect(state.status, url).toBe('exhausted');
      expect(codesOf(state), url).toEqual([code, code, code]);
      expectSchedule(state, SCHEDULE_S.slice(0, 2));
    }
    expect(h.receiver.requests.length - before).toBe(0);
  });

  // ---- Retry-After (R-RA) and R-DELAY --------------------------------------------------------

  it('R-RA: delta-seconds on a 429 and on a 503 moves the next attempt to the header time', async () => {
    for (const status of [429, 503]) {
      const { state } = await h.deliver({ preset: PRESET, respond: script(ra(status, '120'), 200) });
      expect(state.status).toBe('succeeded');
      expectWithin(attemptGapsMs(state)[0]!, 120_000, 120_000, `Retry-After: 120 on ${status}`);
    }
  });

  it('R-RA: an HTTP-date is honoured as the time of the next attempt', async () => {
    const dated = async () => ra(503, httpDate((await h.env.currentTimeMs()) + 600_000));
    const { state } = await h.deliver({ preset: PRESET, respond: script(dated, 200) });
    expect(state.status).toBe('succeeded');
    expectWithin(attemptGapsMs(state)[0]!, 598_000, 600_000, 'Retry-After: <date in 10 min>');
  });

  it('R-RA: a date in the past and `0` on a 503 add no wait: the jittered schedule applies', async () => {
    const past = async () => ra(503, httpDate((await h.env.currentTimeMs()) - HOUR_MS));
    const { state } = await h.deliver({ preset: PRESET, respond: script(past, ra(503, '0'), 200) });
    expect(state.status).toBe('succeeded');
    expectSchedule(state, SCHEDULE_S.slice(0, 2));
  });

  it('R-RA R-DELAY: huge values are capped at 6 h, and the cap never shortens the schedule\u2019s own long steps', async () => {
    const farDate = async () => ra(503, httpDate((await h.env.currentTimeMs()) + 10 * 24 * HOUR_MS));
    const huge = ra(503, '999999');
    const { state } = await h.deliver({
      preset: PRESET,
      respond: script(huge, farDate, ra(429, '86400'), huge, huge, huge, 200),
    });
    expect(state.status).toBe('succeeded');
    const gaps = attemptGapsMs(state);
    expect(gaps).toHaveLength(6);
    // max(jittered step, min(RA, 6 h)): 5s, 5m, 30m, 2h and 5h (at most 6 h with jitter) become 6 h...
    for (const i of [0, 1, 2, 3, 4]) expectWithin(gaps[i]!, RA_CAP_MS, RA_CAP_MS, `gap ${i + 1}`);
    // ...while the 10 h step stays itself (not cut to the 6 h cap).
    expectStep(gaps[5]!, SCHEDULE_S[5]!, 'gap 6');
  });

  it('R-RA: a malformed header is ignored and the jittered schedule applies', async () => {
    // 503s only: a 429 would add bird's 60 s floor, which the 5 s step would not show.
    const { state } = await h.deliver({
      preset: PRESET,
      respond: script(
        ra(503, 'soon'),
        ra(503, '-5'),
        ra(503, '1.5'),
        ra(503, 'Mon, 32 Foo 2020 99:00:00 GMT'),
        ra(503, ''),
        200,
      ),
    });
    expect(state.status).toBe('succeeded');
    expectSchedule(state, SCHEDULE_S.slice(0, 5));
  });

  it('R-RA: honoured only on 429 and 503 (not on 500, 502, 400, 404)', async () => {
    const { state } = await h.deliver({
      preset: PRESET,
      respond: script(ra(500, '3000'), ra(502, '3000'), ra(400, '3000'), ra(404, '3000'), 200),
    });
    expect(state.status).toBe('succeeded');
    expect(codesOf(state)).toEqual(['http_500', 'http_502', 'http_400', 'http_404', undefined]);
    expectSchedule(state, SCHEDULE_S.slice(0, 4));
  });

  it('R-DELAY: max rule: a Retry-After shorter than the schedule step does not shorten it', async () => {
    const { state } = await h.deliver({
      preset: PRESET,
      respond: script(503, ra(503, '10'), ra(429, '120'), 200),
    });
    expect(state.status).toBe('succeeded');
    // 5 s, then max(5 m, 10 s) and max(30 m, 120 s, 60 s floor): the schedule's own steps.
    expectSchedule(state, SCHEDULE_S.slice(0, 3));
  });

  // ---- lifetime -------------------------------------------------------------------------------

  it('R-LIFETIME: none: a schedule far longer than 96 h runs all its 8 attempts', async () => {
    const { state, input } = await h.deliver({
      preset: PRESET,
      overrides: { retryDelays: [72000], maxAttempts: 8 },
      respond: script(500),
    });
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('http_500');
    const rows = attemptsOf(state);
    expect(rows).toHaveLength(8);
    attemptGapsMs(state).forEach((g, i) => expectStep(g, 72000, `gap ${i + 1}`));
    expect(Date.parse(rows.at(-1)!.startedAt) - Date.parse(input.createdAt)).toBeGreaterThan(96 * HOUR_MS);
  });

  // ---- headers, signing, response log ---------------------------------------------------------

  it('R-SIGN: every attempt is signed (verified by `standardwebhooks`), same webhook-id and body, fresh timestamp', async () => {
    const secret = generateSecret();
    const body = JSON.stringify({ type: 'conformance.test', data: { amount: 12.5, note: 'źdźbło 🐦' } });
    const { state, requests, input } = await h.deliver({
      preset: PRESET,
      secrets: [secret],
      body,
      respond: script(500, 503, 200),
    });
    expect(state.status).toBe('succeeded');
    expect(requests).toHaveLength(3);
    const timestamps: number[] = [];
    for (const r of requests) {
      expect(r.body).toBe(body);
      expect(r.headers['webhook-id']).toBe(input.event.id);
      expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
      expect(() =>
        new Webhook(generateSecret()).verify(r.body, r.headers as Record<string, string>),
      ).toThrow();
      const ts = Number(r.headers['webhook-timestamp']);
      expect(Math.abs(ts * 1000 - r.at)).toBeLessThan(5000);
      timestamps.push(ts);
    }
    expect([...timestamps].sort((x, y) => x - y)).toEqual(timestamps);
  });

  it('R-SIGN: during secret rotation both signatures are sent and each secret verifies', async () => {
    const oldSecret = generateSecret();
    const newSecret = generateSecret();
    const { requests } = await h.deliver({
      preset: PRESET,
      secrets: [oldSecret, newSecret],
      respond: script(200),
    });
    expect(requests).toHaveLength(1);
    const r = requests[0]!;
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [oldSecret, newSecret]) {
      expect(() => new Webhook(s).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    }
  });

  it(`R-HDR: ${DELIVERY_ID_HEADER} is <deliveryId>:<attempt> and idempotency-key is the delivery id on every attempt`, async () => {
    const { state, requests, input } = await h.deliver({ preset: PRESET, respond: script(500, 503, 200) });
    expect(state.status).toBe('succeeded');
    expect(requests.map((r) => r.headers[DELIVERY_ID_HEADER])).toEqual(
      [1, 2, 3].map((n) => `${input.deliveryId}:${n}`),
    );
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual(Array(3).fill(input.deliveryId));
    expect(requests[0]!.headers['smengo-delivery-id']).toBeUndefined();
  });

  it('R-RESP: the attempt log keeps the first 512 bytes of the response body, the status, the code, latency and time', async () => {
    const long = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const { state } = await h.deliver({
      preset: PRESET,
      respond: script({ status: 410, body: long }, { status: 200, body: `ok:${long}` }),
    });
    expect(state.status).toBe('succeeded');
    const [failed, ok] = attemptsOf(state);
    expect(failed).toMatchObject({ httpStatus: 410, code: 'gone', responseBody: long.slice(0, 512) });
    expect(Buffer.byteLength(failed!.responseBody!)).toBe(512);
    expect(ok).toMatchObject({ httpStatus: 200, responseBody: `ok:${long}`.slice(0, 512) });
    for (const a of [failed!, ok!]) {
      expect(a.latencyMs).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(a.startedAt))).toBe(false);
      expect(Date.parse(a.finishedAt)).toBeGreaterThanOrEqual(Date.parse(a.startedAt));
    }
  });

  // ---- R-BIRD-REPLAY (delivery level) -------------------------------------------------------------

  it('R-BIRD-REPLAY: a single replay of an exhausted delivery sends exactly one more request, same webhook-id, re-signed, in a new round', async () => {
    const secret = generateSecret();
    const { handle, input, requests } = await h.start({
      preset: PRESET,
      secrets: [secret],
      respond: script(500),
    });
    const dead = await h.waitForStatus(handle, ['exhausted'], HOUR_MS);
    expect(attemptsOf(dead)).toHaveLength(MAX_ATTEMPTS);
    expect(requests()).toHaveLength(MAX_ATTEMPTS);

    // A failing replay: one attempt, not a schedule.
    const accepted = await handle.executeUpdate(replayDeliveryUpdate, { args: [{ mode: 'single' }] });
    expect(accepted.deliveryId).toBe(input.deliveryId);
    const afterFail = await pollState(
      handle,
      (s) => s.attempts.length === MAX_ATTEMPTS + 1 && s.status === 'exhausted',
    );
    await h.env.sleep(24 * HOUR_MS);
    expect(requests()).toHaveLength(MAX_ATTEMPTS + 1);
    const failedRow = afterFail.attempts.at(-1)!;
    expect(failedRow).toMatchObject({
      kind: 'attempt',
      round: 2,
      attempt: 1,
      replay: true,
      code: 'http_500',
    });
    expect(afterFail.round).toBe(2);
    expect(
      afterFail.attempts.slice(0, MAX_ATTEMPTS).every((a) => a.round === 1 && a.replay === undefined),
    ).toBe(true);

    // A succeeding replay, still inside the 3-day window.
    h.receiver.respondWith(script(200));
    await handle.executeUpdate(replayDeliveryUpdate, { args: [{ mode: 'single' }] });
    const done = await pollState(handle, (s) => s.status === 'succeeded');
    expect(done.attempts).toHaveLength(MAX_ATTEMPTS + 2);
    expect(done.attempts.at(-1)).toMatchObject({
      kind: 'attempt',
      round: 3,
      attempt: 1,
      replay: true,
      httpStatus: 200,
    });

    const sent = requests();
    expect(sent).toHaveLength(MAX_ATTEMPTS + 2);
    for (const r of sent) {
      expect(r.headers['webhook-id']).toBe(input.event.id);
      expect(r.body).toBe(input.event.body);
      expect(r.headers['idempotency-key']).toBe(input.deliveryId);
    }
    for (const r of sent.slice(MAX_ATTEMPTS)) {
      expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
      expect(Math.abs(Number(r.headers['webhook-timestamp']) * 1000 - r.at)).toBeLessThan(5000);
      expect(String(r.headers[DELIVERY_ID_HEADER])).toMatch(new RegExp(`^${input.deliveryId}:\\d+$`));
    }
    await handle.terminate('test done');
  });

  it('R-BIRD-REPLAY: a replay of a pending or in-flight delivery is rejected (`delivery_in_progress`)', async () => {
    // Retry-After keeps the next attempt 50 min away (real time, skipping is locked), so nothing races the test.
    const pending = await h.start({ preset: PRESET, respond: script(ra(503, '3000')) });
    await pollState(pending.handle, (s) => s.attempts.length === 1 && s.status === 'pending');
    const e1 = await updateError(
      pending.handle.executeUpdate(replayDeliveryUpdate, { args: [{ mode: 'single' }] }),
    );
    expect(e1).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((e1 as WorkflowUpdateFailedError).cause).toBeInstanceOf(ApplicationFailure);
    expect(((e1 as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe('delivery_in_progress');
    expect(pending.requests()).toHaveLength(1);
    await pending.handle.terminate('test done');

    const inFlight = await h.start({
      preset: PRESET,
      overrides: { timeoutSeconds: 2 },
      respond: script('hang'),
    });
    await pollState(inFlight.handle, (s) => s.status === 'processing');
    const e2 = await updateError(
      inFlight.handle.executeUpdate(replayDeliveryUpdate, { args: [{ mode: 'single' }] }),
    );
    expect(e2).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(((e2 as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe('delivery_in_progress');
    // Let the hanging attempt time out before terminating: terminating a workflow with an
    // activity in flight leaves the test server's time-skipping lock held.
    await pollState(inFlight.handle, (s) => s.attempts.length === 1);
    await inFlight.handle.terminate('test done');
  });

  it('R-BIRD-REPLAY: the replay window is 3 days: afterwards the delivery is closed and a replay cannot be applied', async () => {
    expect(replayWindowSeconds(PRESET)).toBe(3 * 24 * 3600);
    const { state, input } = await h.deliver({ preset: PRESET, respond: script(500) });
    expect(state.status).toBe('exhausted');
    const handle = h.env.client.workflow.getHandle(input.deliveryId);
    const desc = await handle.describe();
    expect(desc.status.name).toBe('COMPLETED');
    const lastFinished = Date.parse(attemptsOf(state).at(-1)!.finishedAt);
    const held = desc.closeTime!.getTime() - lastFinished;
    expect(held).toBeGreaterThanOrEqual(3 * 24 * HOUR_MS - SLACK_MS);
    expect(held).toBeLessThanOrEqual(3 * 24 * HOUR_MS + 60_000);
    await expect(
      handle.executeUpdate(replayDeliveryUpdate, { args: [{ mode: 'single' }] }),
    ).rejects.toThrow();
  });
});

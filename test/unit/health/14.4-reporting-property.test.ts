// Issue 14.4: endpoint health must see every outcome that changes a streak, whatever the
// interleaving of deliveries and however stale the snapshot each one sent on.
//
// The deliveries here run the real send activity (createActivities().sendAttempt: the
// snapshot cache, the send decision, a real HTTP request to a loopback receiver) and
// decide what to report exactly as the delivery workflow does: shouldReport(preset,
// result.health, input). The endpoint workflow is stood in for by a fake Temporal client
// whose snapshot query answers the endpoint's current state and whose reportHealth is
// applyHealth; the receiver holds each request until the test answers it, so fast-check
// chooses when each delivery reads the endpoint and when its outcome happens.
//
// The property: the endpoint's health (every field some rule of the preset reads) and the
// effects it produced equal the preset's rule folded over the true sequence of outcomes
// (every outcome, in the order they happened), reported or not.
import fc from 'fast-check';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import { PinnedDispatchers } from '../../../src/activities/pinned-dispatcher.js';
import {
  DT_SUSPEND_AFTER_FAILURES,
  RH_CIRCUIT_THRESHOLD,
  applyHealth,
  foldHealth,
  initialHealth,
  shouldReport,
  type HealthEffect,
  type HealthInput,
  type HealthState,
  type PresetName,
} from '../../../src/health/index.js';
import { parseCidrList } from '../../../src/policy/address.js';
import { classifyResponse } from '../../../src/policy/classify.js';
import { resolvePolicy } from '../../../src/policy/policy.js';
import type { AttemptRequest, SendResult } from '../../../src/shared/delivery-types.js';
import type { EndpointSnapshot } from '../../../src/shared/endpoint-types.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';
import { endpointOnlyClient } from '../../helpers/endpoint-client.js';
import { Receiver } from '../../helpers/receiver.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const SEC = 1000;
const HOUR = 3600 * SEC;
const DAY = 24 * HOUR;
const HEADER = 'X-Prop-Delivery';
const PRESETS: PresetName[] = ['standard', 'smengo', 'railhook', 'bird', 'dongtien'];

/**
 * The health a preset's rules act on, written out here rather than taken from the
 * implementation: the status and its episode, the holds and cut-offs, the breaker, and the
 * streak field each preset's rule counts with (SPEC §5). The other streak fields are shown
 * as lower bounds only (HealthState.consecutiveFailures).
 */
const COUNTED: Record<PresetName, Array<keyof HealthState>> = {
  standard: [],
  smengo: [],
  railhook: [],
  bird: ['streakStartedAt'],
  dongtien: ['consecutiveFailures'],
};
function ruleHealth(preset: PresetName, s: HealthState) {
  const c = s.circuit ?? { failures: 0, trips: 0 };
  const out: Record<string, unknown> = {
    status: s.status,
    reason: s.reason,
    since: s.since,
    episode: s.episode,
    notified: s.notified ?? [],
    suspendedAt: s.suspendedAt,
    draining: s.draining ?? false,
    endedBefore: s.endedBefore,
    circuit: { failures: c.failures, openUntil: c.openUntil, trips: c.trips, probe: c.probe },
  };
  for (const f of COUNTED[preset]) out[f] = s[f];
  return JSON.parse(JSON.stringify(out)) as unknown;
}

type Outcome = 'ok' | 'fail' | 'fail_last' | 'gone';
type Cmd =
  | { kind: 'start'; d: number }
  | { kind: 'finish'; d: number; outcome: Outcome }
  | { kind: 'wait'; ms: number };

const STATUS: Record<Outcome, number> = { ok: 200, fail: 500, fail_last: 500, gone: 410 };

const receiver = new Receiver();
const dispatchers = new PinnedDispatchers();
let base = '';
/** Requests the receiver holds, by delivery id, and who waits for one to arrive. */
const held = new Map<string, ServerResponse>();
const arrivals = new Map<string, () => void>();

beforeAll(async () => {
  base = await receiver.start();
  receiver.respondWith((req, _i, res) => {
    const id = String(req.headers[HEADER.toLowerCase()] ?? '').split(':')[0]!;
    held.set(id, res);
    arrivals.get(id)?.();
  });
});
afterAll(async () => {
  await receiver.stop();
  await dispatchers.close();
});

/** One endpoint with its deliveries; `truth` is every health input in the order it happened. */
class World {
  state: HealthState = initialHealth();
  effects: HealthEffect[] = [];
  readonly truth: HealthInput[] = [];
  clock = T0;
  private readonly sends = new Map<number, Promise<SendResult>>();
  private readonly activities;
  private readonly endpointId = `ep_prop_${Math.random().toString(36).slice(2, 10)}`;
  private readonly secret = generateSecret();

  constructor(
    readonly preset: PresetName,
    ttlMs: number,
  ) {
    const snapshot = (): EndpointSnapshot => ({
      endpointId: this.endpointId,
      tenantId: 'tenant_prop',
      preset,
      url: `${base}/${this.endpointId}`,
      secrets: [this.secret],
      health: structuredClone(this.state),
      deleted: false,
    });
    const client = endpointOnlyClient(snapshot, {
      // Railhook half-open: the endpoint hands out the single probe turn.
      executeUpdate: async (_u: unknown, opts: { args: [{ deliveryId: string }] }) => {
        this.input({ kind: 'probe_claim', at: this.clock, deliveryId: opts.args[0].deliveryId }, true);
        return structuredClone(this.state);
      },
    });
    this.activities = createActivities({
      dispatchers,
      allowAddresses: parseCidrList(['127.0.0.1/32']),
      allowHttpHosts: ['127.0.0.1'],
      now: () => new Date(this.clock),
      client,
      endpointCacheTtlMs: ttlMs,
      // Every interleaving is driven step by step; the spacing only merges reads in time.
      endpointAfterReadSpacingMs: 0,
    });
  }

  /** An input happened; the endpoint applies it when `reported` (the reportHealth signal). */
  private input(hi: HealthInput, reported: boolean) {
    this.truth.push(hi);
    if (!reported) return;
    const t = applyHealth(this.preset, this.state, hi);
    this.state = t.state;
    this.effects.push(...t.effects);
  }

  private deliveryId(d: number) {
    return `${this.endpointId}_d${d}`;
  }

  /** The delivery reads the endpoint and, if told to send, sends; the receiver holds it. */
  async start(d: number): Promise<void> {
    if (this.sends.has(d)) return;
    const id = this.deliveryId(d);
    const arrived = new Promise<'sent'>((resolve) => arrivals.set(id, () => resolve('sent')));
    const req: AttemptRequest = {
      deliveryId: id,
      tenantId: 'tenant_prop',
      endpointId: this.endpointId,
      attempt: 1,
      event: { id: `msg_${id}`, type: 'prop.test', occurredAt: new Date(T0).toISOString(), body: '{}' },
      createdAt: new Date(T0).toISOString(),
      timeoutSeconds: 30,
      deliveryIdHeader: HEADER,
      preset: this.preset,
      scheduledAt: this.clock,
    };
    const sending = this.activities.sendAttempt(req);
    const first = await Promise.race([arrived, sending.then(() => 'settled' as const)]);
    arrivals.delete(id);
    // Deferred or dropped: nothing was sent, no outcome to report.
    if (first === 'sent') this.sends.set(d, sending);
  }

  /** The held request gets its answer; the delivery reports as the delivery workflow does. */
  async finish(d: number, outcome: Outcome): Promise<void> {
    const sending = this.sends.get(d);
    if (!sending) return;
    this.sends.delete(d);
    const id = this.deliveryId(d);
    held.get(id)!.writeHead(STATUS[outcome]).end();
    held.delete(id);
    const result = await sending;
    const seen = result.health!;
    const at = this.clock;
    const verdict = classifyResponse(resolvePolicy(this.preset), STATUS[outcome]);
    const hi: HealthInput =
      verdict.kind === 'success'
        ? { kind: 'attempt_succeeded', at, deliveryId: id }
        : verdict.kind === 'gone'
          ? { kind: 'gone', at, deliveryId: id }
          : { kind: 'attempt_failed', at, code: result.code ?? 'http_500', deliveryId: id };
    this.input(hi, shouldReport(this.preset, seen, hi));
    // The last attempt of its budget, or a dead-lettering status: the delivery is exhausted.
    if (verdict.kind === 'dead_letter' || (verdict.kind === 'retry' && outcome === 'fail_last')) {
      const ex: HealthInput = { kind: 'delivery_exhausted', at, deliveryId: id };
      this.input(ex, shouldReport(this.preset, seen, ex));
    }
  }

  async run(cmds: Cmd[]): Promise<void> {
    for (const c of cmds) {
      if (c.kind === 'wait') this.clock += c.ms;
      else if (c.kind === 'start') await this.start(c.d);
      else await this.finish(c.d, c.outcome);
    }
    // Whatever is still in flight ends well, in order.
    for (const d of [...this.sends.keys()]) await this.finish(d, 'ok');
  }

  expectRuleOnTruth(): void {
    const expected = foldHealth(this.preset, this.truth, initialHealth());
    expect(ruleHealth(this.preset, this.state)).toEqual(ruleHealth(this.preset, expected.state));
    expect(this.effects).toEqual(expected.effects);
  }
}

const cmdArb = (deliveries: number): fc.Arbitrary<Cmd> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('start' as const), d: fc.nat(deliveries - 1) }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('finish' as const),
        d: fc.nat(deliveries - 1),
        outcome: fc.constantFrom<Outcome>('ok', 'ok', 'fail', 'fail', 'fail', 'fail_last', 'gone'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('wait' as const),
        // Seconds (Railhook's breaker), hours and days (Bird's 5 days, Dong Tien's hold).
        ms: fc.constantFrom(SEC, 20 * SEC, 70 * SEC, HOUR, DAY, 2 * DAY),
      }),
    },
  );

describe('14.4 R-SMENGO-HEALTH R-RH-DEFER R-BIRD-HEALTH R-DT-HEALTH: health sees every outcome that changes a streak', () => {
  it.each(PRESETS)(
    '14.4 %s: over random outcomes, interleavings and stale snapshots, health equals the rule on the true sequence',
    async (preset) => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 2, max: 4 }).chain((n) => fc.array(cmdArb(n), { minLength: 1, maxLength: 40 })),
          // A cache that never expires makes every read before a send as stale as it gets.
          fc.constantFrom(0, 1_000_000_000),
          async (cmds, ttl) => {
            const w = new World(preset, ttl);
            await w.run(cmds);
            w.expectRuleOnTruth();
          },
        ),
        { numRuns: 60 },
      );
    },
    120_000,
  );

  /** Delivery 0 reads a clean endpoint and sends; the others fail meanwhile; then 0 succeeds. */
  const staleSuccess = (failuresBefore: number, failuresAfter: number): Cmd[] => [
    { kind: 'start', d: 0 },
    ...Array.from({ length: failuresBefore }, (): Cmd[] => [
      { kind: 'start', d: 1 },
      { kind: 'wait', ms: SEC },
      { kind: 'finish', d: 1, outcome: 'fail' },
    ]).flat(),
    { kind: 'wait', ms: SEC },
    { kind: 'finish', d: 0, outcome: 'ok' },
    ...Array.from({ length: failuresAfter }, (): Cmd[] => [
      { kind: 'start', d: 1 },
      { kind: 'wait', ms: SEC },
      { kind: 'finish', d: 1, outcome: 'fail' },
    ]).flat(),
  ];

  it.each([0, 1_000_000_000])(
    '14.4 R-DT-HEALTH: F F F F S F does not suspend Dong Tien (5 consecutive failures), even when the success was sent on a clean snapshot (cache ttl %i)',
    async (ttl) => {
      const w = new World('dongtien', ttl);
      await w.run(staleSuccess(DT_SUSPEND_AFTER_FAILURES - 1, 1));
      expect(w.state.status).toBe('active');
      expect(w.state.consecutiveFailures).toBe(1);
      w.expectRuleOnTruth();
    },
  );

  it('14.4 R-RH-DEFER: a success sent on a clean snapshot resets the breaker count, so 9 F, S, 1 F leaves it closed', async () => {
    const w = new World('railhook', 1_000_000_000);
    await w.run(staleSuccess(RH_CIRCUIT_THRESHOLD - 1, 1));
    expect(w.state.circuit?.openUntil).toBeUndefined();
    expect(w.state.circuit?.failures).toBe(1);
    w.expectRuleOnTruth();
  });

  it('14.4 R-BIRD-HEALTH: a success sent before the degradation began still clears it', async () => {
    const w = new World('bird', 1_000_000_000);
    await w.run(staleSuccess(1, 0));
    expect(w.state.status).toBe('active');
    expect(w.effects.map((e) => (e.kind === 'notify' ? e.notice : e.kind))).toEqual(['degraded', 'recovered']);
    w.expectRuleOnTruth();
  });
});

// Endpoint health of the `dongtien` preset (R-DT-HEALTH, SPEC §5 "Dong Tien"), end to end on
// the time-skipping server: the real endpoint and delivery workflows, a real HTTP receiver
// and a real SMTP server. The drain after re-enable needs visibility (list queries), which
// this server lacks; it is tested on the dev server elsewhere.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DT_HOLD_MS, DT_SUSPEND_AFTER_FAILURES } from '../../src/health/dongtien.js';
import { TERMINAL_STATUSES, type DeliveryState } from '../../src/shared/delivery-types.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** What each receiver path answers; anything not listed answers 200. */
const statuses = new Map<string, number>();

const ended = (s: DeliveryState) => TERMINAL_STATUSES.includes(s.status);

describe('endpoint health: dongtien (R-DT-HEALTH)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => res.writeHead(statuses.get(req.path) ?? 200).end());
  });
  afterAll(async () => h?.close());

  const emailsFor = (endpointId: string) =>
    h.smtp.messages.filter((m) => m.text.includes(`Endpoint id: ${endpointId}\n`));
  /** Waits (real time) until the endpoint has had `n` emails. */
  const waitForMail = async (endpointId: string, n: number) => {
    for (const end = Date.now() + 10_000; emailsFor(endpointId).length < n;) {
      if (Date.now() > end) throw new Error(`got ${emailsFor(endpointId).length} of ${n} emails`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const states = (ds: WorkflowHandle[]) => Promise.all(ds.map((d) => h.delivery(d)));

  // First in the file on purpose: a held delivery's wait is computed from the worker's wall
  // clock (deps.now), which the time-skipping server's clock runs ahead of by all the time
  // skipped so far; with little skipped beforehand, their end stays close to the 14 days.
  it('R-DT-HEALTH: 5 consecutive failed attempts across deliveries suspend the endpoint (one email); new deliveries are held; at 14 days every held delivery goes to dead letters and the endpoint is disabled (email)', async () => {
    const { endpointId } = await h.createEndpoint('dongtien');
    statuses.set(`/${endpointId}`, 500);
    const d1 = await h.publish(endpointId, 'dongtien');
    // d2 starts 2 min later so the two third attempts (5 min x [0.9, 1.1) in) are at least a
    // minute apart: published together they can come due within the moment it takes the 5th
    // failure to reach the endpoint, and the other one is then sent as a 6th request.
    await h.advance(2 * MIN);
    const d2 = await h.publish(endpointId, 'dongtien');
    // Each fails at once and ~5 s later (4 failures); the 5th is d1's third attempt ~5 min in.
    await h.advanceUntil(
      async () => (await h.view(endpointId)).health.status === 'suspended',
      30 * S,
      15 * MIN,
    );
    const suspended = await h.view(endpointId);
    expect(suspended.health.reason).toBe('consecutive_failures');
    expect(suspended.health.consecutiveFailures).toBe(DT_SUSPEND_AFTER_FAILURES);
    const suspendedAt = suspended.health.suspendedAt!;
    expect(suspendedAt).toBe(suspended.health.since);
    const [s1, s2] = await states([d1, d2]);
    // The count runs across deliveries: neither failed 5 times on its own.
    expect(s1!.attemptsInRound + s2!.attemptsInRound).toBe(DT_SUSPEND_AFTER_FAILURES);
    expect(Math.max(s1!.attemptsInRound, s2!.attemptsInRound)).toBeLessThan(DT_SUSPEND_AFTER_FAILURES);
    // It was the 5th failed attempt that suspended.
    const failedAt = [...s1!.attempts, ...s2!.attempts]
      .filter((a) => a.kind === 'attempt')
      .map((a) => Date.parse(a.finishedAt));
    expect(suspendedAt).toBe(Math.max(...failedAt));
    expect(h.requestsFor(endpointId)).toHaveLength(DT_SUSPEND_AFTER_FAILURES);

    await waitForMail(endpointId, 1);
    let mails = emailsFor(endpointId);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(['owner@tenant.test']);
    expect(mails[0]!.subject).toContain('suspended');

    // A delivery published while suspended is held: a deferral row, nothing sent.
    statuses.set(`/${endpointId}`, 200);
    const d3 = await h.publish(endpointId, 'dongtien');
    await h.advanceUntil(async () => (await h.delivery(d3)).attempts.length > 0, S, 30 * S);
    // The others' retries (the other one's third attempt, ~5 min) are held too.
    for (let t = 0; t < 30 * MIN; t += 5 * MIN) await h.advance(5 * MIN);
    for (const s of await states([d1, d2, d3])) {
      expect(['pending', 'processing']).toContain(s.status);
      expect(
        s.attempts.filter((a) => a.kind === 'deferral').every((a) => a.code === 'endpoint_suspended'),
      ).toBe(true);
    }
    const held = await h.delivery(d3);
    expect(held.attempts.length).toBeGreaterThan(0);
    expect(held.attempts.every((a) => a.kind === 'deferral' && a.code === 'endpoint_suspended')).toBe(true);
    expect(held.attemptsInRound).toBe(0);
    const after = await states([d1, d2]);
    expect(after.some((s) => s.attempts.some((a) => a.kind === 'deferral'))).toBe(true);
    expect(after[0]!.attemptsInRound + after[1]!.attemptsInRound).toBe(DT_SUSPEND_AFTER_FAILURES);
    expect(h.requestsFor(endpointId)).toHaveLength(DT_SUSPEND_AFTER_FAILURES);

    // Up to an hour before the 14 days: still suspended, nothing sent, nothing lost.
    const holdEnd = suspendedAt + DT_HOLD_MS;
    while ((await h.env.currentTimeMs()) < holdEnd - DAY) await h.advance(DAY);
    await h.advance(holdEnd - HOUR - (await h.env.currentTimeMs()));
    expect((await h.view(endpointId)).health.status).toBe('suspended');
    for (const s of await states([d1, d2, d3])) expect(ended(s)).toBe(false);
    expect(h.requestsFor(endpointId)).toHaveLength(DT_SUSPEND_AFTER_FAILURES);
    expect(emailsFor(endpointId)).toHaveLength(1);

    // At 14 days: disabled, the owner told, every held delivery a dead letter.
    await h.advanceUntil(
      async () => (await h.view(endpointId)).health.status === 'disabled',
      10 * MIN,
      2 * HOUR,
    );
    const disabled = await h.view(endpointId);
    expect(disabled.health.since).toBe(holdEnd);
    expect(disabled.health.reason).toBe('held_too_long');
    expect(disabled.banner?.reason).toBe('held_too_long');
    await waitForMail(endpointId, 2);
    mails = emailsFor(endpointId);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.to).toEqual(['owner@tenant.test']);
    expect(mails[1]!.subject).toContain('disabled');

    await h.advanceUntil(async () => (await states([d1, d2, d3])).every(ended), 10 * MIN, DAY);
    for (const s of await states([d1, d2, d3])) {
      expect(s.status).toBe('exhausted');
      expect(s.lastCode).toBe('endpoint_disabled');
      // Ended at its next look after the 14 days, by a refusal row that spent nothing. (The
      // look comes a few minutes late here only because of the wall-clock skew noted above.)
      const end = s.attempts.at(-1)!;
      expect(end).toMatchObject({ kind: 'refused', code: 'endpoint_disabled' });
      expect(Date.parse(end.finishedAt)).toBeGreaterThanOrEqual(holdEnd);
      expect(Date.parse(end.finishedAt)).toBeLessThan(holdEnd + HOUR);
    }
    // Still the same attempts: the held ones spent nothing, and nothing was ever sent.
    const [e1, e2, e3] = await states([d1, d2, d3]);
    expect(e1!.attemptsInRound + e2!.attemptsInRound).toBe(DT_SUSPEND_AFTER_FAILURES);
    expect(e3!.attemptsInRound).toBe(0);
    expect(h.requestsFor(endpointId)).toHaveLength(DT_SUSPEND_AFTER_FAILURES);
    expect(emailsFor(endpointId)).toHaveLength(2);
  });

  it('R-DT-HEALTH: a 410 disables the endpoint at once (email); the delivery and the pending ones end exhausted (dead letters, never dropped); a new event is not queued', async () => {
    const { endpointId } = await h.createEndpoint('dongtien');
    statuses.set(`/${endpointId}`, 500);
    const pending = await h.publish(endpointId, 'dongtien');
    await h.advanceUntil(async () => (await h.delivery(pending)).attemptsInRound === 2, S, 30 * S);

    statuses.set(`/${endpointId}`, 410);
    const gone = await h.publish(endpointId, 'dongtien');
    await h.advanceUntil(async () => ended(await h.delivery(gone)), S, 30 * S);
    const g = await h.delivery(gone);
    expect(g.status).toBe('exhausted');
    expect(g.lastCode).toBe('gone');
    expect(g.attemptsInRound).toBe(1);

    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'disabled', S, 10 * S);
    const view = await h.view(endpointId);
    expect(view.health.reason).toBe('gone');
    expect(view.banner?.reason).toBe('gone');
    expect(view.health.since).toBe(Date.parse(g.attempts[0]!.finishedAt));
    await waitForMail(endpointId, 1);
    const mails = emailsFor(endpointId);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(['owner@tenant.test']);
    expect(mails[0]!.subject).toContain('disabled');

    // The delivery that was mid-schedule becomes a dead letter at its next turn, unsent.
    statuses.set(`/${endpointId}`, 200);
    await h.advanceUntil(async () => ended(await h.delivery(pending)), MIN, HOUR);
    const p = await h.delivery(pending);
    expect(p.status).toBe('exhausted');
    expect(p.lastCode).toBe('endpoint_disabled');
    expect(p.attemptsInRound).toBe(2);

    // New events to a disabled endpoint are not queued (SPEC §5): never attempted.
    const late = await h.publish(endpointId, 'dongtien');
    await h.advanceUntil(async () => ended(await h.delivery(late)), S, 30 * S);
    const l = await h.delivery(late);
    expect(l.status).toBe('failed');
    expect(l.lastCode).toBe('endpoint_disabled');
    expect(l.attemptsInRound).toBe(0);

    expect(h.requestsFor(endpointId)).toHaveLength(3);
    expect(emailsFor(endpointId)).toHaveLength(1);
  });
});

// Endpoint health of the `railhook` preset (SPEC §3 "endpoint health": circuit breaker
// deferral only; R-RH-DEFER), end to end on the time-skipping server: the real endpoint
// and delivery workflows, a real HTTP receiver and a real SMTP server.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RH_CIRCUIT_OPEN_MS, RH_CIRCUIT_THRESHOLD } from '../../src/health/railhook.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;

/** What each receiver path answers; anything not listed answers 200. */
const statuses = new Map<string, number>();

/** Polls in real time (no time skipped): for signals and activities that need no timer. */
async function until(check: () => Promise<boolean>, realMs = 20_000): Promise<void> {
  const end = Date.now() + realMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`condition not met within ${realMs} ms of real time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('endpoint health: railhook (R-RH-DEFER)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => res.writeHead(statuses.get(req.path) ?? 200).end());
  });
  afterAll(async () => h?.close());

  const emailsFor = (endpointId: string) =>
    h.smtp.messages.filter((m) => m.text.includes(`Endpoint id: ${endpointId}\n`));

  it('R-RH-DEFER: the circuit breaker opens after the threshold of consecutive failed attempts, defers deliveries (circuit_open, no attempt spent), lets one probe through after the open period and closes on its success; never disabled, no email', async () => {
    // The breaker is judged on workflow time (the send activity gets the attempt's
    // scheduled time), so the open period passes with the skipped clock.
    const { endpointId } = await h.createEndpoint('railhook');
    const path = `/${endpointId}`;
    statuses.set(path, 500);

    const early: WorkflowHandle[] = [];
    for (let i = 0; i < RH_CIRCUIT_THRESHOLD - 1; i++) early.push(await h.publish(endpointId, 'railhook'));
    await until(async () => h.requestsFor(endpointId).length === RH_CIRCUIT_THRESHOLD - 1);
    await until(async () => (await h.view(endpointId)).health.circuit?.failures === RH_CIRCUIT_THRESHOLD - 1);
    // One below the threshold: still closed.
    let view = await h.view(endpointId);
    expect(view.health.circuit?.openUntil).toBeUndefined();
    expect(view.health.status).toBe('active');

    early.push(await h.publish(endpointId, 'railhook'));
    await until(async () => (await h.view(endpointId)).health.circuit?.openUntil !== undefined);
    view = await h.view(endpointId);
    const circuit = view.health.circuit!;
    expect(circuit.failures).toBe(RH_CIRCUIT_THRESHOLD);
    expect(circuit.trips).toBe(1);
    // The breaker opened at the threshold-th failure, for the open period.
    const failedAt = (
      await Promise.all(
        early.map(async (d) => (await h.delivery(d)).attempts.map((a) => Date.parse(a.finishedAt))),
      )
    ).flat();
    expect(circuit.openUntil).toBe(Math.max(...failedAt) + RH_CIRCUIT_OPEN_MS);
    expect(h.requestsFor(endpointId)).toHaveLength(RH_CIRCUIT_THRESHOLD);

    // While open, a new delivery is deferred before its first attempt.
    const late = await h.publish(endpointId, 'railhook');
    await until(async () => (await h.delivery(late)).attempts.some((a) => a.kind === 'deferral'));
    // The failed deliveries' second attempt is due 30-90 s later (1m × 0.5-1.5): those
    // that come up while the breaker is open (the first 60 s) are deferred, spending nothing.
    for (let t = 0; t < 50 * S; t += 10 * S) await h.advance(10 * S);
    for (const d of [...early, late]) {
      const s = await h.delivery(d);
      expect(['pending', 'processing']).toContain(s.status);
      const deferrals = s.attempts.filter((a) => a.kind === 'deferral');
      if (d === late) expect(deferrals.length).toBeGreaterThan(0);
      expect(deferrals.every((a) => a.code === 'circuit_open')).toBe(true);
      expect(s.attemptsInRound).toBe(d === late ? 0 : 1);
      expect(s.attempts.filter((a) => a.kind === 'attempt')).toHaveLength(d === late ? 0 : 1);
    }
    expect(h.requestsFor(endpointId)).toHaveLength(RH_CIRCUIT_THRESHOLD);

    // The receiver is fixed; after the open period one probe goes through, its success
    // closes the breaker, and then everything deferred goes out.
    statuses.set(path, 200);
    await h.advanceUntil(
      async () => (await h.view(endpointId)).health.circuit?.openUntil === undefined,
      2 * S,
      2 * MIN,
    );
    // The probe reached the receiver. Deliveries whose recheck fell in the same skipped
    // step as the close may already have followed it (legitimately: the breaker is closed);
    // that only one request went out while it was not, is checked on the attempt log below.
    expect(h.requestsFor(endpointId).length).toBeGreaterThanOrEqual(RH_CIRCUIT_THRESHOLD + 1);
    view = await h.view(endpointId);
    expect(view.health.circuit).toMatchObject({ failures: 0, trips: 1 });
    expect(view.health.consecutiveFailures).toBe(0);

    const all = [...early, late];
    await h.advanceUntil(
      async () => (await Promise.all(all.map((d) => h.delivery(d)))).every((s) => s.status === 'succeeded'),
      10 * S,
      5 * MIN,
    );
    for (const d of all) {
      const s = await h.delivery(d);
      // No deferral spent an attempt: one failure and one success, or just the success.
      expect(s.attemptsInRound).toBe(d === late ? 1 : 2);
    }
    // Exactly one request (the probe) between opening and closing: on the workflow clock,
    // every other successful attempt started after the probe's had finished, and the
    // breaker closes only on the probe's reported success.
    const ok = (await Promise.all(all.map((d) => h.delivery(d))))
      .flatMap((s) => s.attempts)
      .filter((a) => a.kind === 'attempt' && a.httpStatus === 200)
      .sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
    expect(ok).toHaveLength(all.length);
    const probeDone = Date.parse(ok[0]!.finishedAt);
    expect(ok.slice(1).filter((a) => Date.parse(a.startedAt) < probeDone)).toEqual([]);
    expect(h.requestsFor(endpointId)).toHaveLength(RH_CIRCUIT_THRESHOLD + 1 + all.length - 1);

    // The breaker is a deferral only: the endpoint never left `active`, nobody was emailed.
    view = await h.view(endpointId);
    expect(view.health.status).toBe('active');
    expect(view.banner).toBeUndefined();
    expect(emailsFor(endpointId)).toHaveLength(0);
    expect(h.smtp.messages).toHaveLength(0);
  });
});

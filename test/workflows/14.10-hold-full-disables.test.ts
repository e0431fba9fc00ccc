// Issue 14.10 (R-DT-HEALTH; seed: "past 10,000 events or 14 days, the rest go to the
// dead-letter list and the endpoint is disabled"): when an event finds a suspended Dong
// Tien endpoint's hold full, the publish route reports `hold_full` to it (the signal below
// is what its reportHoldFull sends), and the endpoint is disabled the way the 14 days
// disable it: the owner is mailed, what it holds becomes dead letters, new events are not
// queued. The count of 10,000 itself: test/load/dongtien-hold-cap.test.ts (dev server).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DT_SUSPEND_AFTER_FAILURES } from '../../src/health/index.js';
import { TERMINAL_STATUSES, type DeliveryState } from '../../src/shared/delivery-types.js';
import { reportHealthSignal } from '../../src/shared/endpoint-messages.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;

const statuses = new Map<string, number>();
const ended = (s: DeliveryState) => TERMINAL_STATUSES.includes(s.status);

describe('14.10 Dong Tien: a full hold disables the endpoint (R-DT-HEALTH)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => res.writeHead(statuses.get(req.path) ?? 200).end());
  });
  afterAll(async () => h?.close());

  const emailsFor = (endpointId: string) =>
    h.smtp.messages.filter((m) => m.text.includes(`Endpoint id: ${endpointId}\n`));
  const reportHoldFull = (endpointId: string, at: number) =>
    h.env.client.workflow.getHandle(endpointId).signal(reportHealthSignal, { kind: 'hold_full', at });
  const waitForMail = async (endpointId: string, n: number) =>
    h.advanceUntil(async () => emailsFor(endpointId).length >= n, S, MIN);

  it('14.10 R-DT-HEALTH: the overflow report disables a suspended endpoint with the 14-day path\'s notice; held deliveries are cut to dead letters; a new event is not queued', async () => {
    const { endpointId } = await h.createEndpoint('dongtien', { policy: { maxAttempts: 1 } });
    statuses.set(`/${endpointId}`, 500);
    for (let i = 0; i < DT_SUSPEND_AFTER_FAILURES; i++) {
      const d = await h.publish(endpointId, 'dongtien', { maxAttempts: 1 });
      await h.advanceUntil(async () => ended(await h.delivery(d)), S, 30 * S);
    }
    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'suspended', S, 30 * S);
    await waitForMail(endpointId, 1);

    // Two events held while suspended.
    statuses.set(`/${endpointId}`, 200);
    const held = [await h.publish(endpointId, 'dongtien'), await h.publish(endpointId, 'dongtien')];
    await h.advanceUntil(
      async () => (await Promise.all(held.map((d) => h.delivery(d)))).every((s) => s.attempts.some((a) => a.kind === 'deferral')),
      S,
      30 * S,
    );

    const at = await h.env.currentTimeMs();
    await reportHoldFull(endpointId, at);
    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'disabled', S, 30 * S);
    const view = await h.view(endpointId);
    expect(view.health).toMatchObject({ status: 'disabled', reason: 'hold_full', since: at });
    expect(view.banner).toMatchObject({ reason: 'hold_full' });
    // Every delivery queued before the disable and still pending ends as a dead letter.
    expect(view.health.endedBefore).toEqual({ at, endAs: 'exhausted', code: 'endpoint_disabled' });

    // The same notice as the 14 days: one "disabled" email to the owner.
    await waitForMail(endpointId, 2);
    const mails = emailsFor(endpointId);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.to).toEqual(['owner@tenant.test']);
    expect(mails[1]!.subject).toContain('disabled');
    expect(mails[1]!.text).toContain('hold_full');

    // A second overflowing event: no second email.
    await reportHoldFull(endpointId, await h.env.currentTimeMs());
    await h.advance(MIN);
    expect(emailsFor(endpointId)).toHaveLength(2);

    // A new event is not queued, and nothing held was sent.
    const late = await h.publish(endpointId, 'dongtien');
    await h.advanceUntil(async () => ended(await h.delivery(late)), S, 30 * S);
    expect(await h.delivery(late)).toMatchObject({ status: 'failed', lastCode: 'endpoint_disabled', attemptsInRound: 0 });
    expect(h.requestsFor(endpointId)).toHaveLength(DT_SUSPEND_AFTER_FAILURES);
    for (const d of held) expect((await h.delivery(d)).attemptsInRound).toBe(0);
  });

  it('14.10 R-DT-HEALTH: the report is harmless on an endpoint that holds nothing', async () => {
    const { endpointId } = await h.createEndpoint('dongtien');
    await reportHoldFull(endpointId, await h.env.currentTimeMs());
    await h.advance(MIN);
    expect((await h.view(endpointId)).health.status).toBe('active');
    const d = await h.publish(endpointId, 'dongtien');
    await h.advanceUntil(async () => ended(await h.delivery(d)), S, 30 * S);
    expect((await h.delivery(d)).status).toBe('succeeded');
  });
});

// Smengo's manual pause (R-SMENGO-PAUSE) and its 410 rule (R-SMENGO-HEALTH), end to end on
// the time-skipping server: the real endpoint and delivery workflows, a real HTTP receiver
// and a real SMTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pauseEndpointUpdate,
  resumeEndpointUpdate,
  sendTestUpdate,
} from '../../src/shared/endpoint-messages.js';
import { TERMINAL_STATUSES, type DeliveryState } from '../../src/shared/delivery-types.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;

/** What each receiver path answers; anything not listed answers 200. */
const statuses = new Map<string, number>();

const ended = (s: DeliveryState) => TERMINAL_STATUSES.includes(s.status);

describe('endpoint health: smengo pause and 410 (R-SMENGO-PAUSE, R-SMENGO-HEALTH)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => res.writeHead(statuses.get(req.path) ?? 200).end());
  });
  afterAll(async () => h?.close());

  const emailsFor = (endpointId: string) =>
    h.smtp.messages.filter((m) => m.text.includes(`Endpoint id: ${endpointId}\n`));

  it('R-SMENGO-PAUSE: a delivery queued before a pause is deferred (endpoint_paused, no attempt spent) past its retry time, a test goes through while paused, and the delivery goes out after resume; pause is not disable', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('smengo');
    statuses.set(`/${endpointId}`, 500);
    const d = await h.publish(endpointId, 'smengo');
    // Attempt 1 at once, attempt 2 after 5 s (× 0.9-1.1): both fail.
    await h.advanceUntil(async () => (await h.delivery(d)).attemptsInRound === 2, S, 30 * S);
    const before = await h.delivery(d);
    expect(before.status).toBe('pending');
    const retryAt = Date.parse(before.nextAttemptAt!);
    expect(h.requestsFor(endpointId)).toHaveLength(2);

    const paused = await ep.executeUpdate(pauseEndpointUpdate);
    expect(paused.health.status).toBe('paused');
    expect(paused.health.reason).toBe('manual');
    statuses.set(`/${endpointId}`, 200);

    // Well past the scheduled third attempt (about 5 min out), a minute at a time.
    for (let t = 0; t < 15 * MIN; t += MIN) await h.advance(MIN);
    expect(await h.env.currentTimeMs()).toBeGreaterThan(retryAt + 5 * MIN);
    let s = await h.delivery(d);
    expect(s.status).toBe('pending');
    expect(s.attemptsInRound).toBe(2);
    const deferrals = s.attempts.filter((a) => a.kind === 'deferral');
    expect(deferrals.length).toBeGreaterThanOrEqual(2);
    expect(deferrals.every((a) => a.code === 'endpoint_paused')).toBe(true);
    // Deferral rows stand before attempt 3, which has not been spent.
    expect(deferrals.every((a) => a.attempt === 3)).toBe(true);
    expect(s.attempts.filter((a) => a.kind === 'attempt')).toHaveLength(2);
    expect(h.requestsFor(endpointId)).toHaveLength(2);

    // A test delivery reaches the receiver while paused, and does not un-pause.
    const test = await ep.executeUpdate(sendTestUpdate);
    expect(test.ok).toBe(true);
    expect(h.requestsFor(endpointId)).toHaveLength(3);
    expect(JSON.parse(h.requestsFor(endpointId)[2]!.body)).toMatchObject({ type: 'endpoint.test' });
    expect((await h.view(endpointId)).health.status).toBe('paused');

    // Pause is not disable: no email, and the banner says why it is stopped.
    const view = await h.view(endpointId);
    expect(view.banner?.reason).toBe('manual');
    expect(emailsFor(endpointId)).toHaveLength(0);

    const resumed = await ep.executeUpdate(resumeEndpointUpdate);
    expect(resumed.health.status).toBe('active');
    await h.advanceUntil(async () => (await h.delivery(d)).status === 'succeeded', 10 * S, 2 * MIN);
    s = await h.delivery(d);
    expect(s.attemptsInRound).toBe(3);
    const last = s.attempts.at(-1)!;
    expect(last).toMatchObject({ kind: 'attempt', attempt: 3, httpStatus: 200 });
    expect(h.requestsFor(endpointId)).toHaveLength(4);
    expect(emailsFor(endpointId)).toHaveLength(0);
  });

  it('R-SMENGO-PAUSE: an event arriving while paused is not queued: it is never sent, even after resume', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('smengo');
    await ep.executeUpdate(pauseEndpointUpdate);
    const d = await h.publish(endpointId, 'smengo');
    await h.advanceUntil(async () => ended(await h.delivery(d)), S, 30 * S);
    const s = await h.delivery(d);
    expect(s.status).toBe('failed');
    expect(s.lastCode).toBe('endpoint_paused');
    expect(s.attemptsInRound).toBe(0);
    await ep.executeUpdate(resumeEndpointUpdate);
    await h.advance(10 * MIN);
    expect((await h.delivery(d)).status).toBe('failed');
    expect(h.requestsFor(endpointId)).toHaveLength(0);
  });

  it('R-SMENGO-HEALTH: a 410 makes the delivery dead (gone) and disables the endpoint at once, with an email, a `gone` banner, and pending deliveries dead', async () => {
    const { endpointId } = await h.createEndpoint('smengo');
    statuses.set(`/${endpointId}`, 500);
    // A delivery mid-schedule when the 410 arrives.
    const pending = await h.publish(endpointId, 'smengo');
    await h.advanceUntil(async () => (await h.delivery(pending)).attemptsInRound === 2, S, 30 * S);

    statuses.set(`/${endpointId}`, 410);
    const gone = await h.publish(endpointId, 'smengo');
    await h.advanceUntil(async () => ended(await h.delivery(gone)), S, 30 * S);
    const g = await h.delivery(gone);
    expect(g.status).toBe('dead');
    expect(g.lastCode).toBe('gone');
    expect(g.attemptsInRound).toBe(1);
    expect(g.attempts[0]).toMatchObject({ kind: 'attempt', httpStatus: 410, code: 'gone' });

    // At once: no time has to pass for the disable.
    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'disabled', S, 10 * S);
    const view = await h.view(endpointId);
    expect(view.health.reason).toBe('gone');
    expect(view.banner?.reason).toBe('gone');
    expect(view.health.since).toBe(Date.parse(g.attempts[0]!.finishedAt));

    await h.smtp.waitFor(1);
    const mails = emailsFor(endpointId);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(['owner@tenant.test']);
    expect(mails[0]!.subject).toContain('disabled');

    // The delivery that was pending dies at its next turn without a request.
    statuses.set(`/${endpointId}`, 200);
    await h.advanceUntil(async () => ended(await h.delivery(pending)), MIN, HOUR);
    const p = await h.delivery(pending);
    expect(p.status).toBe('dead');
    expect(p.lastCode).toBe('endpoint_disabled');
    expect(p.attemptsInRound).toBe(2);
    expect(h.requestsFor(endpointId)).toHaveLength(3);
    expect(emailsFor(endpointId)).toHaveLength(1);
  });
});

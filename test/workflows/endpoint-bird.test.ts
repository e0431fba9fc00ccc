// Endpoint health of the `bird` preset (R-BIRD-HEALTH, SPEC §5 "Bird degradation"), end to
// end on the time-skipping server: the real endpoint and delivery workflows, a real HTTP
// receiver and a real SMTP server. Days pass through the server clock only.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIRD_PAUSE_AFTER_MS } from '../../src/health/bird.js';
import {
  resumeEndpointUpdate,
  sendTestUpdate,
  updateEndpointUpdate,
} from '../../src/shared/endpoint-messages.js';
import { TERMINAL_STATUSES, type DeliveryState } from '../../src/shared/delivery-types.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** What each receiver path answers; anything not listed answers 200. */
const statuses = new Map<string, number>();

const ended = (s: DeliveryState) => TERMINAL_STATUSES.includes(s.status);
const failedAttempts = (s: DeliveryState) =>
  s.attempts.filter((a) => a.kind === 'attempt' && a.code !== undefined);

describe('endpoint health: bird (R-BIRD-HEALTH)', () => {
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
  const status = async (endpointId: string) => (await h.view(endpointId)).health.status;
  const states = (ds: WorkflowHandle[]) => Promise.all(ds.map((d) => h.delivery(d)));

  /** A bird endpoint whose receiver answers 500, degraded by a first failed delivery. */
  async function degradedEndpoint() {
    const ep = await h.createEndpoint('bird');
    statuses.set(`/${ep.endpointId}`, 500);
    const d = await h.publish(ep.endpointId, 'bird');
    await h.advanceUntil(async () => (await status(ep.endpointId)) === 'degraded', S, 10 * S);
    await waitForMail(ep.endpointId, 1);
    return { ...ep, d };
  }

  it('R-BIRD-HEALTH: the first failed attempt degrades the endpoint with one email per degradation period; deliveries still go out; a success clears it and a later failure opens a new period with a second email', async () => {
    const { endpointId } = await h.createEndpoint('bird');
    statuses.set(`/${endpointId}`, 500);
    const d1 = await h.publish(endpointId, 'bird');
    await h.advanceUntil(async () => (await status(endpointId)) === 'degraded', S, 10 * S);
    let view = await h.view(endpointId);
    const firstFailure = Date.parse(failedAttempts(await h.delivery(d1))[0]!.finishedAt);
    expect(view.health).toMatchObject({
      reason: 'failing',
      since: firstFailure,
      streakStartedAt: firstFailure,
    });
    expect(view.health.consecutiveFailures).toBeGreaterThanOrEqual(1);
    expect(view.banner?.reason).toBe('failing');

    await waitForMail(endpointId, 1);
    const first = emailsFor(endpointId)[0]!;
    expect(first.to).toEqual(['owner@tenant.test']);
    expect(first.subject).toContain('degraded');

    // Degraded still receives: d1 keeps retrying (5 s, 5 m, 30 m, 2 h) and a new delivery is sent.
    await h.advance(HOUR);
    const d2 = await h.publish(endpointId, 'bird');
    for (let t = 0; t < 3 * HOUR; t += 10 * MIN) await h.advance(10 * MIN);
    const [s1, s2] = await states([d1, d2]);
    expect(s1!.attemptsInRound).toBe(5);
    expect(s2!.attemptsInRound).toBeGreaterThanOrEqual(4);
    expect(h.requestsFor(endpointId)).toHaveLength(s1!.attemptsInRound + s2!.attemptsInRound);
    expect([...failedAttempts(s1!), ...failedAttempts(s2!)]).toHaveLength(h.requestsFor(endpointId).length);
    // Nine-plus failures, still the one period and the one email.
    view = await h.view(endpointId);
    expect(view.health.status).toBe('degraded');
    expect(view.health.episode).toBe(1);
    expect(emailsFor(endpointId)).toHaveLength(1);

    // The receiver is fixed: the next successful delivery clears the degradation.
    statuses.set(`/${endpointId}`, 200);
    await h.advanceUntil(
      async () => (await states([d1, d2])).some((s) => s.status === 'succeeded'),
      10 * MIN,
      15 * HOUR,
    );
    await h.advanceUntil(async () => (await status(endpointId)) === 'active', S, 10 * S);
    view = await h.view(endpointId);
    expect(view.health.consecutiveFailures).toBe(0);
    expect(view.health.streakStartedAt).toBeUndefined();
    expect(view.banner).toBeUndefined();
    await h.advanceUntil(
      async () => (await states([d1, d2])).every((s) => s.status === 'succeeded'),
      10 * MIN,
      15 * HOUR,
    );
    expect(emailsFor(endpointId)).toHaveLength(1);

    // A later failure starts a new degradation period: a second email.
    statuses.set(`/${endpointId}`, 500);
    const d3 = await h.publish(endpointId, 'bird');
    await h.advanceUntil(async () => (await status(endpointId)) === 'degraded', S, 10 * S);
    view = await h.view(endpointId);
    expect(view.health.episode).toBe(2);
    expect(view.health.streakStartedAt).toBe(Date.parse(failedAttempts(await h.delivery(d3))[0]!.finishedAt));
    await waitForMail(endpointId, 2);
    const second = emailsFor(endpointId)[1]!;
    expect(second.to).toEqual(['owner@tenant.test']);
    expect(second.subject).toContain('degraded');
    expect(second.text).toContain('degraded #2');
    statuses.set(`/${endpointId}`, 200);
  });

  it('R-BIRD-HEALTH: a successful test delivery clears degradation, a failed one does not', async () => {
    const { endpointId, handle: ep } = await degradedEndpoint();
    const before = (await h.view(endpointId)).health;

    const failed = await ep.executeUpdate(sendTestUpdate);
    expect(failed).toMatchObject({ ok: false, httpStatus: 500 });
    let view = await h.view(endpointId);
    expect(view.health.status).toBe('degraded');
    expect(view.health.consecutiveFailures).toBeGreaterThanOrEqual(before.consecutiveFailures);
    expect(view.health.streakStartedAt).toBe(before.streakStartedAt);
    expect(view.lastTest?.ok).toBe(false);

    statuses.set(`/${endpointId}`, 200);
    const ok = await ep.executeUpdate(sendTestUpdate);
    expect(ok).toMatchObject({ ok: true, httpStatus: 200 });
    view = await h.view(endpointId);
    expect(view.health.status).toBe('active');
    expect(view.health.consecutiveFailures).toBe(0);
    expect(view.health.streakStartedAt).toBeUndefined();
    const tests = h.requestsFor(endpointId).filter((r) => JSON.parse(r.body).type === 'endpoint.test');
    expect(tests).toHaveLength(2);
    expect(emailsFor(endpointId)).toHaveLength(1);
  });

  it('R-BIRD-HEALTH: a URL change clears degradation (and waiting retries follow the new URL); a description or event-type edit does not', async () => {
    const { endpointId, handle: ep, d } = await degradedEndpoint();
    const before = (await h.view(endpointId)).health;

    const edited = await ep.executeUpdate(updateEndpointUpdate, {
      args: [{ description: 'Orders receiver' }],
    });
    expect(edited.config.description).toBe('Orders receiver');
    expect(edited.health.status).toBe('degraded');
    expect(edited.health.streakStartedAt).toBe(before.streakStartedAt);
    expect(edited.health.consecutiveFailures).toBe(before.consecutiveFailures);
    const filtered = await ep.executeUpdate(updateEndpointUpdate, { args: [{ eventTypes: ['health.*'] }] });
    expect(filtered.health.status).toBe('degraded');
    expect(filtered.health.streakStartedAt).toBe(before.streakStartedAt);

    const moved = `/${endpointId}-moved`;
    const changed = await ep.executeUpdate(updateEndpointUpdate, { args: [{ url: `${h.baseUrl}${moved}` }] });
    expect(changed.health.status).toBe('active');
    expect(changed.health.consecutiveFailures).toBe(0);
    expect(changed.health.streakStartedAt).toBeUndefined();
    expect(changed.banner).toBeUndefined();

    // The delivery still in its schedule goes to the new URL (which answers 200).
    const sentBefore = h.requestsFor(endpointId).length;
    await h.advanceUntil(async () => (await h.delivery(d)).status === 'succeeded', 10 * S, HOUR);
    expect(h.receiver.requests.filter((r) => r.path === moved)).toHaveLength(1);
    expect(h.requestsFor(endpointId)).toHaveLength(sentBefore);
    expect(await status(endpointId)).toBe('active');
    expect(emailsFor(endpointId)).toHaveLength(1);
  });

  it('R-BIRD-HEALTH: after 5 days of uninterrupted failure the first failed attempt pauses the endpoint (email); deliveries in their schedule end failed, unsent; it never resumes by itself; resume brings it back', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('bird');
    statuses.set(`/${endpointId}`, 500);
    const ds: WorkflowHandle[] = [await h.publish(endpointId, 'bird')];
    await h.advanceUntil(async () => (await status(endpointId)) === 'degraded', S, 10 * S);
    const streakStart = (await h.view(endpointId)).health.streakStartedAt!;
    expect(streakStart).toBe(Date.parse(failedAttempts(await h.delivery(ds[0]!))[0]!.finishedAt));

    // A bird delivery's schedule spans about 28 h; a new failing one every 20 h keeps
    // attempts failing without a break until the endpoint pauses.
    let lastPublish = await h.env.currentTimeMs();
    await h.advanceUntil(
      async () => {
        const st = await status(endpointId);
        if (st === 'paused') return true;
        expect(st).toBe('degraded');
        const now = await h.env.currentTimeMs();
        if (now - lastPublish >= 20 * HOUR) {
          ds.push(await h.publish(endpointId, 'bird'));
          lastPublish = now;
        }
        return false;
      },
      HOUR,
      8 * DAY,
    );
    const view = await h.view(endpointId);
    expect(view.health.reason).toBe('failing_5_days');
    expect(view.banner?.reason).toBe('failing_5_days');
    const pausedAt = view.health.since!;
    // Paused by the first failed attempt 5 days or more after the streak began.
    const failures = (await states(ds)).flatMap((s) =>
      failedAttempts(s).map((a) => Date.parse(a.finishedAt)),
    );
    const due = failures.filter((t) => t >= streakStart + BIRD_PAUSE_AFTER_MS);
    expect(due.length).toBeGreaterThan(0);
    expect(pausedAt).toBe(Math.min(...due));
    // ...and the failures really were uninterrupted: attempts kept failing all along.
    const sorted = failures.filter((t) => t <= pausedAt).sort((a, b) => a - b);
    const gaps = sorted.slice(1).map((t, i) => t - sorted[i]!);
    expect(Math.max(...gaps)).toBeLessThan(13 * HOUR);

    await waitForMail(endpointId, 2);
    const mails = emailsFor(endpointId);
    expect(mails.map((m) => m.subject.match(/endpoint (\w+)/)?.[1])).toEqual(['degraded', 'paused']);
    expect(mails.every((m) => m.to.join() === 'owner@tenant.test')).toBe(true);

    // Deliveries still in their schedule end failed at their next turn, without a request
    // (the longest bird step is 10 h × 1.2).
    statuses.set(`/${endpointId}`, 200);
    const sentAtPause = h.requestsFor(endpointId).length;
    await h.advanceUntil(async () => (await states(ds)).every(ended), HOUR, DAY);
    const final = await states(ds);
    const stopped = final.filter((s) => s.status === 'failed');
    expect(stopped.length).toBeGreaterThan(0);
    for (const s of final) {
      // Each either used up its attempts before the pause or was stopped by it.
      expect(['exhausted', 'failed']).toContain(s.status);
      expect(
        s.attempts.filter((a) => a.kind === 'attempt' && Date.parse(a.startedAt) > pausedAt),
      ).toHaveLength(0);
      if (s.status === 'failed') {
        expect(s.lastCode).toBe('endpoint_paused');
        expect(s.attempts.at(-1)).toMatchObject({ kind: 'refused', code: 'endpoint_paused' });
      }
    }
    expect(h.requestsFor(endpointId)).toHaveLength(sentAtPause);

    // Never resumes by itself; events arriving now are never attempted.
    for (let i = 0; i < 3; i++) await h.advance(DAY);
    expect(await status(endpointId)).toBe('paused');
    const whilePaused = await h.publish(endpointId, 'bird');
    await h.advanceUntil(async () => ended(await h.delivery(whilePaused)), S, MIN);
    expect(await h.delivery(whilePaused)).toMatchObject({
      status: 'failed',
      lastCode: 'endpoint_paused',
      attemptsInRound: 0,
    });
    expect(await status(endpointId)).toBe('paused');
    expect(h.requestsFor(endpointId)).toHaveLength(sentAtPause);

    // Resume: active again, a new delivery goes out.
    const resumed = await ep.executeUpdate(resumeEndpointUpdate);
    expect(resumed.health.status).toBe('active');
    expect(resumed.health.consecutiveFailures).toBe(0);
    const after = await h.publish(endpointId, 'bird');
    await h.advanceUntil(async () => ended(await h.delivery(after)), S, MIN);
    expect((await h.delivery(after)).status).toBe('succeeded');
    expect(h.requestsFor(endpointId)).toHaveLength(sentAtPause + 1);
    expect(emailsFor(endpointId)).toHaveLength(2);
  });
});

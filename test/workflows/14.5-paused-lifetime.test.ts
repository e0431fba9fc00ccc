// Issue 14.5 (R-SMENGO-HEALTH as `standard` reads it, R-SMENGO-PAUSE, R-RH-LIFETIME's 96 h):
// a delivery that reaches its lifetime while the endpoint holds it back is a dead letter
// (`exhausted`, `lifetime_exceeded`) but does not count as "a delivery that exhausts all
// its attempts": a pause longer than 96 h must not disable the endpoint it paused. End to
// end on the time-skipping server: real endpoint and delivery workflows, a real HTTP
// receiver and a real SMTP server on loopback.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState } from '../../src/shared/delivery-types.js';
import { TERMINAL_STATUSES } from '../../src/shared/delivery-types.js';
import { pauseEndpointUpdate, resumeEndpointUpdate } from '../../src/shared/endpoint-messages.js';
import { DELIVERY_WORKFLOW } from '../../src/shared/names.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const LIFETIME = 96 * HOUR;

/** What each receiver path answers; anything not listed answers 200. */
const statuses = new Map<string, number>();
const ended = (s: DeliveryState) => TERMINAL_STATUSES.includes(s.status);
const attemptRows = (s: DeliveryState) => s.attempts.filter((a) => a.kind === 'attempt');

describe('14.5 standard: a paused endpoint cannot disable itself (R-SMENGO-HEALTH, R-RH-LIFETIME)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => res.writeHead(statuses.get(req.path) ?? 200).end());
  });
  afterAll(async () => h?.close());

  const emailsFor = (endpointId: string) =>
    h.smtp.messages.filter((m) => m.text.includes(`Endpoint id: ${endpointId}\n`));

  /**
   * A delivery queued at `createdAt` (before the pause) whose first attempt had not gone
   * out yet: it reads the endpoint, finds it paused and waits. Set back in time so its
   * 96 h end falls while a younger delivery still waits.
   */
  let n = 0;
  const queuedAt = (endpointId: string, createdAtMs: number): Promise<WorkflowHandle> => {
    const createdAt = new Date(createdAtMs).toISOString();
    const id = `dlv_145_${endpointId}_${++n}`;
    const input: DeliveryInput = {
      deliveryId: id,
      tenantId: 'tenant_ep',
      endpointId,
      event: { id: `msg_145_${n}`, type: 'health.test', occurredAt: createdAt, body: JSON.stringify({ n }) },
      policy: resolvePolicy('standard'),
      createdAt,
    };
    return h.env.client.workflow.start(DELIVERY_WORKFLOW, { workflowId: id, taskQueue: h.taskQueue, args: [input] });
  };

  it('14.5 R-SMENGO-HEALTH R-SMENGO-PAUSE: paused for 100 h, a delivery that only waited reaches 96 h as a dead letter; the endpoint stays paused, no email, the other pending delivery survives and the endpoint delivers after resume', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('standard');
    const paused = await ep.executeUpdate(pauseEndpointUpdate);
    expect(paused.health.status).toBe('paused');
    const pausedAt = paused.health.since!;

    const older = await queuedAt(endpointId, pausedAt - 6 * HOUR);
    const younger = await queuedAt(endpointId, pausedAt - S);
    await h.advanceUntil(
      async () => (await Promise.all([older, younger].map((d) => h.delivery(d)))).every((s) => s.attempts.length > 0),
      S,
      MIN,
    );

    // The older one's lifetime ends at pause + 90 h.
    await h.advanceUntil(async () => ended(await h.delivery(older)), HOUR, 95 * HOUR);
    const o = await h.delivery(older);
    expect(o.status).toBe('exhausted');
    expect(o.lastCode).toBe('lifetime_exceeded');
    expect(o.attemptsInRound).toBe(0);
    expect(attemptRows(o)).toHaveLength(0);
    expect(o.attempts.filter((a) => a.kind === 'deferral').every((a) => a.code === 'endpoint_paused')).toBe(true);
    expect(o.attempts.length).toBeGreaterThan(0);

    // Give a report every chance to land: the endpoint is still paused, nobody was mailed,
    // and the younger delivery still waits (a disable would have made it `dead`).
    await h.advance(10 * MIN);
    let view = await h.view(endpointId);
    expect(view.health.status).toBe('paused');
    expect(view.health.reason).toBe('manual');
    expect(emailsFor(endpointId)).toHaveLength(0);
    const y = await h.delivery(younger);
    expect(y.status).toBe('pending');
    expect(y.attemptsInRound).toBe(0);

    // 100 h of pause: the younger one reached its own 96 h the same way, still no disable.
    await h.advance(pausedAt + 100 * HOUR - (await h.env.currentTimeMs()));
    const y2 = await h.delivery(younger);
    expect(y2).toMatchObject({ status: 'exhausted', lastCode: 'lifetime_exceeded', attemptsInRound: 0 });
    view = await h.view(endpointId);
    expect(view.health.status).toBe('paused');
    expect(emailsFor(endpointId)).toHaveLength(0);

    // Resume: the endpoint was never disabled, so a new event goes out.
    expect((await ep.executeUpdate(resumeEndpointUpdate)).health.status).toBe('active');
    const fresh = await h.publish(endpointId, 'standard');
    await h.advanceUntil(async () => ended(await h.delivery(fresh)), S, MIN);
    expect((await h.delivery(fresh)).status).toBe('succeeded');
    expect(h.requestsFor(endpointId)).toHaveLength(1);
    expect(emailsFor(endpointId)).toHaveLength(0);
  }, 600_000);

  it('14.5 R-SMENGO-HEALTH: failed attempts, then a pause that outlasts the lifetime: the end is the pause\'s, not a failure; the endpoint is not disabled', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('standard');
    statuses.set(`/${endpointId}`, 500);
    // 10 h between attempts so the lifetime falls in a retry that the pause defers.
    const d = await h.publish(endpointId, 'standard', { retryDelays: [36_000], maxAttempts: 20 });
    await h.advanceUntil(async () => (await h.delivery(d)).attemptsInRound === 2, 30 * MIN, 12 * HOUR);
    const created = Date.parse((await h.delivery(d)).attempts[0]!.startedAt);
    expect((await ep.executeUpdate(pauseEndpointUpdate)).health.status).toBe('paused');

    await h.advanceUntil(async () => ended(await h.delivery(d)), HOUR, LIFETIME);
    const s = await h.delivery(d);
    expect(s).toMatchObject({ status: 'exhausted', lastCode: 'lifetime_exceeded', attemptsInRound: 2 });
    expect(s.attempts.at(-1)).toMatchObject({ kind: 'deferral', code: 'endpoint_paused' });
    expect(Date.parse(s.attempts.at(-1)!.finishedAt) - created).toBeLessThanOrEqual(LIFETIME + MIN);

    await h.advance(10 * MIN);
    const view = await h.view(endpointId);
    expect(view.health.status).toBe('paused');
    expect(emailsFor(endpointId)).toHaveLength(0);
    expect(h.requestsFor(endpointId)).toHaveLength(2);
  }, 600_000);

  it('14.5 R-SMENGO-HEALTH R-RH-LIFETIME (still holds): a delivery that failed its attempts until 96 h disables the endpoint, mails the owner and kills the other pending delivery', async () => {
    const { endpointId } = await h.createEndpoint('standard');
    statuses.set(`/${endpointId}`, 500);
    // 20 h steps x 8 cannot fit in 96 h: the lifetime ends it mid-schedule, after failures.
    const first = await h.publish(endpointId, 'standard', { retryDelays: [72_000], maxAttempts: 8 });
    // Another delivery, failing on the standard schedule, is mid-schedule at 96 h.
    await h.advance(90 * HOUR);
    const other = await h.publish(endpointId, 'standard');

    await h.advanceUntil(async () => ended(await h.delivery(first)), HOUR, LIFETIME);
    const s = await h.delivery(first);
    expect(s).toMatchObject({ status: 'exhausted', lastCode: 'lifetime_exceeded' });
    expect(attemptRows(s).length).toBeGreaterThanOrEqual(5);

    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'disabled', MIN, HOUR);
    expect((await h.view(endpointId)).health.reason).toBe('delivery_exhausted');
    // Dead at its next turn (its next retry, a few hours away), without a request.
    const sent = h.requestsFor(endpointId).length;
    await h.advanceUntil(async () => ended(await h.delivery(other)), HOUR, 24 * HOUR);
    expect(await h.delivery(other)).toMatchObject({ status: 'dead', lastCode: 'endpoint_disabled' });
    expect(h.requestsFor(endpointId)).toHaveLength(sent);
    await h.smtp.waitFor(1);
    expect(emailsFor(endpointId)).toHaveLength(1);
    expect(emailsFor(endpointId)[0]!.subject).toContain('disabled');
  });
});

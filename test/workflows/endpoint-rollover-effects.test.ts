// An endpoint run that must roll over (continueAsNew) stops its notices still retrying and
// hands them to the next run, with whatever the health rules decided meanwhile (a pause, a
// disable): nothing is dropped between runs, and nothing is sent twice. Time-skipping server, real workflows,
// activities, receiver and SMTP server.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableEndpointUpdate, reserveTurnsUpdate } from '../../src/shared/endpoint-messages.js';
import { NOTICE_RETRIES_MS } from '../../src/notify/notice-retries.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;
/** One past the permit updates a run takes before it rolls over (src/workflows/endpoint.ts). */
const PERMIT_UPDATES_TO_ROLL_OVER = 1_201;

describe('endpoint roll-over keeps the health rules’ effects (R-BIRD-HEALTH, R-CRASH)', () => {
  let h: EndpointHarness;
  const statuses = new Map<string, number>();
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => res.writeHead(statuses.get(req.path) ?? 200).end());
  });
  afterAll(async () => h?.close());

  const runId = async (ep: WorkflowHandle) => (await ep.describe()).runId;

  const emailsFor = (endpointId: string) =>
    h.smtp.messages.filter((m) => m.text.includes(`Endpoint id: ${endpointId}\n`));
  const notices = (endpointId: string) =>
    emailsFor(endpointId).map((m) => m.subject.match(/endpoint (\w+)/)?.[1]);

  /** Enough permit updates that the run must continue as new. */
  const rollOver = async (ep: WorkflowHandle) => {
    for (let sent = 0; sent < PERMIT_UPDATES_TO_ROLL_OVER; sent += 50) {
      const n = Math.min(50, PERMIT_UPDATES_TO_ROLL_OVER - sent);
      await Promise.all(
        Array.from({ length: n }, () => ep.executeUpdate(reserveTurnsUpdate, { args: [{ deliveryIds: [] }] })),
      );
    }
  };

  /**
   * A Bird endpoint degraded while the mail server is down: its degraded notice keeps
   * retrying in the background, for hours (20 attempts, up to 10 minutes apart).
   */
  const degradedWithMailDown = async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('bird');
    statuses.set(`/${endpointId}`, 500);
    const smtpPort = h.smtp.lastPort;
    await h.smtp.stop();
    await h.publish(endpointId, 'bird');
    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'degraded', S, 10 * S);
    return { endpointId, ep, smtpPort };
  };

  it('R-BIRD-HEALTH: a run due to roll over does not wait for a notice retrying while the mail server is down; the next run sends it, then an operator stop\'s "paused" notice, each once', async () => {
    const { endpointId, ep, smtpPort } = await degradedWithMailDown();
    const firstRun = await runId(ep);

    // Enough permit updates that the run must roll over. It used to wait for the notice
    // first, taking every update meanwhile until Temporal refused them (2,000 per run).
    await rollOver(ep);
    await h.advanceUntil(async () => (await runId(ep)) !== firstRun, S, MIN);
    expect(emailsFor(endpointId)).toHaveLength(0);

    // Bird: an operator stop pauses the endpoint and tells its owner (notify 'paused').
    const stopped = await ep.executeUpdate(disableEndpointUpdate, { args: [{ reason: 'operator' }] });
    expect(stopped.health.status).toBe('paused');

    // The mail server is back: the next run's retries get both notices through.
    await h.smtp.start(smtpPort);
    await h.advanceUntil(async () => emailsFor(endpointId).length >= 2, 5 * S, 4 * MIN);
    await h.advance(5 * MIN);
    // Each retries on its own schedule, so either may arrive first.
    expect(notices(endpointId).sort()).toEqual(['degraded', 'paused']);
    expect((await h.view(endpointId)).health.status).toBe('paused');
  });

  it('R-BIRD-HEALTH: a notice handed to the next run keeps what is left of its retries (about 2 h 40 min in all), it does not start them again', async () => {
    const { endpointId, ep, smtpPort } = await degradedWithMailDown();

    // Two hours of the degraded notice's retries, then a roll-over hands it to the next run.
    const handedOverAfter = 120 * MIN;
    await h.advance(handedOverAfter);
    const before = await runId(ep);
    await rollOver(ep);
    await h.advanceUntil(async () => (await runId(ep)) !== before, S, MIN);

    // Past the notice's budget, the mail server comes back: the notice was given up for good
    // at its time, not retried for another 2 h 40 min from the roll-over.
    await h.advance(NOTICE_RETRIES_MS - handedOverAfter + 5 * MIN);
    await h.smtp.start(smtpPort);
    await h.advance(30 * MIN);
    expect(notices(endpointId)).toEqual([]);
    expect((await h.view(endpointId)).health.status).toBe('degraded');
  });
});

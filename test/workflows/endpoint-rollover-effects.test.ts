// An endpoint run that must roll over (continueAsNew) first waits for its notices in flight.
// Whatever the health rules decide meanwhile (a pause, a disable) must still be carried out:
// by the next run, since this one is about to end. Time-skipping server, real workflows,
// activities, receiver and SMTP server.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableEndpointUpdate, reserveTurnsUpdate } from '../../src/shared/endpoint-messages.js';
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

  it('R-BIRD-HEALTH: an operator stop that arrives while the run waits on a retrying notice to roll over still sends its "paused" notice, from the next run', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('bird');
    statuses.set(`/${endpointId}`, 500);
    // The mail server is down: the degraded notice keeps retrying in the background.
    const smtpPort = h.smtp.lastPort;
    await h.smtp.stop();
    await h.publish(endpointId, 'bird');
    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'degraded', S, 10 * S);
    const firstRun = await runId(ep);

    // Enough permit updates that the run must roll over; it waits for the notice first.
    for (let sent = 0; sent < PERMIT_UPDATES_TO_ROLL_OVER; sent += 50) {
      const n = Math.min(50, PERMIT_UPDATES_TO_ROLL_OVER - sent);
      await Promise.all(
        Array.from({ length: n }, () =>
          ep.executeUpdate(reserveTurnsUpdate, { args: [{ deliveryIds: [] }] }),
        ),
      );
    }
    // Bird: an operator stop pauses the endpoint and tells its owner (notify 'paused').
    const stopped = await ep.executeUpdate(disableEndpointUpdate, { args: [{ reason: 'operator' }] });
    expect(stopped.health.status).toBe('paused');
    expect(await runId(ep)).toBe(firstRun);

    // The mail server is back; the degraded notice's next retry gets through, and the run
    // rolls over.
    await h.smtp.start(smtpPort);
    await h.advanceUntil(async () => (await runId(ep)) !== firstRun, 5 * S, 4 * MIN);
    await h.advance(30 * S);
    await expect.poll(() => emailsFor(endpointId).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(notices(endpointId)).toEqual(['degraded', 'paused']);
    expect((await h.view(endpointId)).health.status).toBe('paused');
  });
});

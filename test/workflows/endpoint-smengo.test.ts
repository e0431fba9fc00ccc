import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseDelaySeconds } from '../../src/policy/schedule.js';
import { resolvePolicy, worstCaseScheduleSeconds } from '../../src/policy/policy.js';
import { resumeEndpointUpdate, sendTestUpdate } from '../../src/shared/endpoint-messages.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const HOUR = 3_600_000;

/**
 * When a failing smengo delivery can end, from its start: at the latest, every wait at its
 * maximum jitter (worstCaseScheduleSeconds); at the earliest, every wait at its minimum. Two
 * started together can end up to ~5.5 h apart (0.2 x the 27.6 h schedule), so a second one
 * started later than that spread cannot exhaust first.
 */
function smengoEnds(): { earliestMs: number; latestMs: number } {
  const p = resolvePolicy('smengo');
  let delaysMs = 0;
  for (let failed = 1; failed < p.maxAttempts; failed++) delaysMs += baseDelaySeconds(p, failed) * 1000;
  return { earliestMs: delaysMs * p.jitter.min, latestMs: worstCaseScheduleSeconds(p) * 1000 };
}

describe('endpoint health: smengo (R-SMENGO-HEALTH)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
  });
  afterAll(async () => h?.close());

  it('R-SMENGO-HEALTH: the first exhausted delivery disables the endpoint, kills pending deliveries, emails the creator once and shows a banner', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('smengo');
    h.respond((_r, _i, res) => res.writeHead(500).end());
    const first = await h.publish(endpointId, 'smengo');
    // A second delivery starts after the jitter spread, so it is mid-schedule when the first
    // exhausts and cannot exhaust before it (3 h, as before, lost that race in 0.6% of runs).
    const ends = smengoEnds();
    const offsetMs = Math.ceil((ends.latestMs - ends.earliestMs) / HOUR) * HOUR;
    expect(offsetMs).toBeLessThan(ends.earliestMs);
    await h.advance(offsetMs);
    const second = await h.publish(endpointId, 'smengo');
    await h.advanceUntil(async () => (await h.delivery(first)).status === 'exhausted', HOUR, 40 * HOUR);

    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'disabled', 1000, 60_000);
    const view = await h.view(endpointId);
    expect(view.health.reason).toBe('delivery_exhausted');
    expect(view.banner?.reason).toBe('delivery_exhausted');

    await h.smtp.waitFor(1);
    expect(h.smtp.messages[0]!.to).toEqual(['owner@tenant.test']);
    expect(h.smtp.messages[0]!.text).toContain(`/${endpointId}`);

    // Re-enable: the second delivery, pending at the disable, must never be sent again.
    const sentBefore = h.requestsFor(endpointId).length;
    h.respond((_r, _i, res) => res.writeHead(200).end());
    const test = await ep.executeUpdate(sendTestUpdate);
    expect(test.ok).toBe(true);
    await ep.executeUpdate(resumeEndpointUpdate);
    await h.advance(48 * HOUR);
    const s2 = await h.delivery(second);
    expect(s2.status).toBe('dead');
    expect(s2.lastCode).toBe('endpoint_disabled');
    // Only the test request reached the receiver after the disable.
    expect(h.requestsFor(endpointId).length - sentBefore).toBe(1);
    expect(h.smtp.messages).toHaveLength(1);
  });
});

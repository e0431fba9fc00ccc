// Issue 14.4 on the time-skipping server: the real endpoint and delivery workflows, the
// real send activity and snapshot cache, a real loopback receiver. A success sent while
// the endpoint looked clean must still reset the failure streak other deliveries built up
// while it was in flight.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DT_SUSPEND_AFTER_FAILURES } from '../../src/health/dongtien.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';


describe('14.4 R-DT-HEALTH: endpoint health sees a success sent on a clean snapshot (dongtien)', () => {
  let h: EndpointHarness;
  /** The delivery whose request the receiver holds, and its held response. */
  let holdId = '';
  let held: ServerResponse | undefined;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => {
      const id = String(req.headers['webhook-delivery-id'] ?? '').split(':')[0];
      if (id === holdId) held = res;
      else res.writeHead(500).end();
    });
  });
  afterAll(async () => h?.close());

  const waitFor = async (what: string, check: () => Promise<boolean> | boolean, ms = 20_000) => {
    for (const end = Date.now() + ms; !(await check()); ) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('14.4 R-DT-HEALTH: F F F F S F, where S was sent before the 4 failures, leaves the endpoint active with 1 failure, not suspended', async () => {
    const { endpointId } = await h.createEndpoint('dongtien');
    // One attempt each, so no retry adds failures of its own while the test runs.
    const once = { maxAttempts: 1 };

    // S: read the endpoint (clean) and send; the receiver holds the request.
    holdId = '';
    const s = await h.publish(endpointId, 'dongtien');
    holdId = s.workflowId;
    await waitFor('the held request', () => held !== undefined);

    // F F F F from other deliveries, each reported while S is in flight.
    for (let i = 1; i < DT_SUSPEND_AFTER_FAILURES; i++) {
      await h.publish(endpointId, 'dongtien', once);
      await waitFor(`failure ${i}`, async () => (await h.view(endpointId)).health.consecutiveFailures === i);
    }

    // S answers 200: the streak of 4 is reset although S saw a clean endpoint at send time.
    held!.writeHead(200).end();
    await waitFor('S succeeded', async () => (await h.delivery(s)).status === 'succeeded');
    // The delivery reports before it records its end, so the reset is already applied.
    expect((await h.view(endpointId)).health.consecutiveFailures).toBe(0);

    // F: the next failure starts a new streak of 1.
    await h.publish(endpointId, 'dongtien', once);
    await waitFor('the last failure', async () => (await h.view(endpointId)).health.consecutiveFailures >= 1);
    const view = await h.view(endpointId);
    expect(view.health.status).toBe('active');
    expect(view.health.consecutiveFailures).toBe(1);
    expect(h.requestsFor(endpointId)).toHaveLength(DT_SUSPEND_AFTER_FAILURES + 1);
  }, 90_000);
});

// Issue 14.17 (R-DT-REPLAY, SPEC §5 "A held event counts as pending (replay answers 409)"):
// a delivery held by a suspended Dong Tien endpoint, not one merely waiting for its next
// scheduled attempt, refuses a replay with delivery_in_progress (the API's 409). The real
// endpoint and delivery workflows on the time-skipping server.
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DT_SUSPEND_AFTER_FAILURES } from '../../src/health/dongtien.js';
import { DELIVERY_IN_PROGRESS, replayDeliveryUpdate } from '../../src/shared/messages.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;

describe('14.17 R-DT-REPLAY: a suspension-held delivery answers 409 to a replay', () => {
  let h: EndpointHarness;
  let failing = '';
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => res.writeHead(req.path === failing ? 500 : 200).end());
  });
  afterAll(async () => h?.close());

  it('14.17 R-DT-REPLAY: a delivery held by a suspended endpoint (no attempt of its own yet) refuses a replay with delivery_in_progress and stays held', async () => {
    const { endpointId } = await h.createEndpoint('dongtien');
    failing = `/${endpointId}`;
    await h.publish(endpointId, 'dongtien');
    // Apart, so the 5th failure (a third attempt) reaches the endpoint before the other
    // delivery's third attempt comes due (see endpoint-dongtien.test.ts).
    await h.advance(2 * MIN);
    await h.publish(endpointId, 'dongtien');
    await h.advanceUntil(async () => (await h.view(endpointId)).health.status === 'suspended', 30 * S, 15 * MIN);
    const sentBefore = h.requestsFor(endpointId).length;
    expect(sentBefore).toBe(DT_SUSPEND_AFTER_FAILURES);

    // The receiver is fixed, but the endpoint stays suspended: a new delivery is held.
    failing = '';
    const held = await h.publish(endpointId, 'dongtien');
    await h.advanceUntil(async () => (await h.delivery(held)).attempts.length > 0, S, 30 * S);
    const before = await h.delivery(held);
    expect(before.status).toBe('pending');
    expect(before.attempts.map((a) => `${a.kind}:${a.code}`)).toEqual(['deferral:endpoint_suspended']);
    expect(before.attemptsInRound).toBe(0);

    let failure: unknown;
    try {
      await held.executeUpdate(replayDeliveryUpdate, { args: [{ mode: 'round' }] });
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (failure as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(DELIVERY_IN_PROGRESS);

    // Still held where it stood: same round, nothing sent.
    const after = await h.delivery(held);
    expect(after).toMatchObject({ status: 'pending', round: 1, attemptsInRound: 0 });
    expect(h.requestsFor(endpointId)).toHaveLength(sentBefore);
    await held.terminate('test done');
  }, 120_000);
});

// Issue 17 with issue 16: an inline first attempt counts toward its endpoint's share of the
// send slots from the moment it holds its inline slot, not only once its reads are done. The
// send here is real (a loopback receiver); the Temporal client is a stand-in whose endpoint
// read waits until the test lets it answer, and which records wake signals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InlineSlots } from '../../src/activities/inline-slots.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { SHARE_DEFERRAL_CODE, SendShare } from '../../src/policy/flow-share.js';
import { endpointOnlyClient } from '../helpers/endpoint-client.js';
import { Receiver } from '../helpers/receiver.js';
import { firstAttemptTo, loopbackActivities, loopbackEndpoint } from '../helpers/send-activity.js';

const receiver = new Receiver();
const dispatchers = new PinnedDispatchers();
let base = '';

beforeAll(async () => {
  base = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
  await dispatchers.close();
});

function setUp(opts: { deleted?: boolean } = {}) {
  const endpointId = `ep_inline_share_${Math.random().toString(36).slice(2)}`;
  const snapshot = loopbackEndpoint(base, endpointId, 'tenant_inline_share', opts);
  let answerReads!: () => void;
  const readsAnswered = new Promise<void>((r) => (answerReads = r));
  const woken: string[] = [];
  const client = endpointOnlyClient(
    async () => {
      await readsAnswered;
      return structuredClone(snapshot);
    },
    (id) => ({ signal: async () => void woken.push(id) }),
  );
  const share = new SendShare(2);
  const activities = loopbackActivities(dispatchers, {
    client,
    sendShare: share,
    // Room for many inline attempts, at most two of one endpoint: its share.
    inlineSlots: new InlineSlots(10, 2),
  });
  const firstAttempt = (n: number) => firstAttemptTo(snapshot, `dlv_${endpointId}_${n}`, `msg_${n}`, { inline: true });
  return { endpointId, share, activities, firstAttempt, answerReads, woken };
}

describe('issue 17: inline first attempts hold their endpoint\'s share from the start', () => {
  it('R-RH-DEFER: a first attempt refused its inline slot while its endpoint\'s inline attempts still read the endpoint is deferred, and woken when one ends', async () => {
    const { endpointId, share, activities, firstAttempt, answerReads, woken } = setUp();
    const sent = receiver.requests.length;
    // Two inline attempts take the endpoint's inline slots; their endpoint reads are pending.
    const running = [activities.sendAttempt(firstAttempt(1)), activities.sendAttempt(firstAttempt(2))];
    await new Promise((r) => setTimeout(r, 20));
    // The third is refused its inline slot. Sent as the activity, the full share would refuse
    // it there: a second workflow task and an activity task for nothing.
    const third = await activities.sendAttempt(firstAttempt(3));
    expect(third.inlineDeclined).toBeUndefined();
    expect(third.deferral?.code).toBe(SHARE_DEFERRAL_CODE);
    expect(third.notSent).toBe(true);
    expect(share.held(endpointId)).toBe(2);

    answerReads();
    const results = await Promise.all(running);
    expect(results.map((r) => r.httpStatus)).toEqual([200, 200]);
    expect(receiver.requests.length - sent).toBe(2);
    // The first freed slot wakes the deferred delivery (a signal, not a poll).
    expect(woken).toEqual([`dlv_${endpointId}_3`]);
    expect(share.held(endpointId)).toBe(0);
  });

  it('R-STATUS: an inline attempt that is not sent (its endpoint deleted) gives its share slot back', async () => {
    const { endpointId, share, activities, firstAttempt, answerReads } = setUp({ deleted: true });
    answerReads();
    const result = await activities.sendAttempt(firstAttempt(1));
    expect(result.drop?.code).toBe('endpoint_disabled');
    expect(share.held(endpointId)).toBe(0);
  });
});

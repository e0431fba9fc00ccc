// Issue 16 (cost per delivery): after a successful attempt the send activity reads the
// endpoint (a DescribeWorkflowExecution, issue 14.4) only under a preset whose report
// decision could depend on what it reads. The send here is real (a loopback receiver); the
// Temporal client is a stand-in that counts the endpoint reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { initialHealth, type PresetName } from '../../src/health/index.js';
import { HEALTH_MEMO_KEY } from '../../src/shared/health-memo.js';
import { endpointOnlyClient } from '../helpers/endpoint-client.js';
import { Receiver } from '../helpers/receiver.js';
import { firstAttemptTo, loopbackActivities, loopbackEndpoint } from '../helpers/send-activity.js';

const receiver = new Receiver();
const dispatchers = new PinnedDispatchers();
let base = '';
/** Endpoint reads made so far, and how many there were when the receiver got the request. */
let describes = 0;
let describesAtArrival = -1;

beforeAll(async () => {
  base = await receiver.start();
  receiver.respondWith((_req, _i, res) => {
    describesAtArrival = describes;
    res.writeHead(200).end('ok');
  });
});
afterAll(async () => {
  await receiver.stop();
  await dispatchers.close();
});

async function succeedOnce(preset: PresetName) {
  const snapshot = loopbackEndpoint(base, `ep_read_after_${preset}`, 'tenant_read_after', { preset });
  const health = snapshot.health;
  const client = endpointOnlyClient(() => structuredClone(snapshot), {
    describe: async () => {
      describes++;
      return {
        status: { name: 'RUNNING' },
        runId: 'run_1',
        memo: { [HEALTH_MEMO_KEY]: structuredClone(health) },
        raw: { pendingWorkflowTask: null },
      };
    },
  });
  const activities = loopbackActivities(dispatchers, { client, endpointAfterReadSpacingMs: 0 });
  describes = 0;
  describesAtArrival = -1;
  const req = firstAttemptTo(snapshot, `dlv_read_after_${preset}`, `msg_${preset}`);
  const result = await activities.sendAttempt(req);
  expect(result.httpStatus).toBe(200);
  expect(result.code).toBeUndefined();
  expect(describesAtArrival).toBeGreaterThanOrEqual(0);
  return { result, readsAfter: describes - describesAtArrival };
}

describe('issue 16: a successful attempt reads the endpoint after it only when its judgement needs it', () => {
  it.each<PresetName>(['standard', 'smengo'])(
    'R-SMENGO-HEALTH: a success under %s makes no endpoint read after the send, and still hands back the health',
    async (preset) => {
      const { result, readsAfter } = await succeedOnce(preset);
      expect(readsAfter).toBe(0);
      expect(result.health).toEqual(initialHealth());
    },
  );

  it.each<PresetName>(['railhook', 'bird', 'dongtien'])(
    '14.4: a success under %s is judged on one read of the endpoint made after the send',
    async (preset) => {
      const { result, readsAfter } = await succeedOnce(preset);
      expect(readsAfter).toBe(1);
      expect(result.health).toEqual(initialHealth());
    },
  );
});

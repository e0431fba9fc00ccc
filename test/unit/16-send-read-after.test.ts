// Issue 16 (cost per delivery): after a successful attempt the send activity reads the
// endpoint (a DescribeWorkflowExecution, issue 14.4) only under a preset whose report
// decision could depend on what it reads. The send here is real (a loopback receiver); the
// Temporal client is a stand-in that counts the endpoint reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { initialHealth, type PresetName } from '../../src/health/index.js';
import { parseCidrList } from '../../src/policy/address.js';
import type { AttemptRequest } from '../../src/shared/delivery-types.js';
import type { EndpointSnapshot } from '../../src/shared/endpoint-types.js';
import { HEALTH_MEMO_KEY } from '../../src/shared/health-memo.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { endpointOnlyClient } from '../helpers/endpoint-client.js';
import { Receiver } from '../helpers/receiver.js';

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
  const endpointId = `ep_read_after_${preset}`;
  const health = initialHealth();
  const snapshot: EndpointSnapshot = {
    endpointId,
    tenantId: 'tenant_read_after',
    preset,
    url: `${base}/${endpointId}`,
    secrets: [generateSecret()],
    health,
    deleted: false,
  };
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
  const activities = createActivities({
    dispatchers,
    allowAddresses: parseCidrList(['127.0.0.1/32']),
    allowHttpHosts: ['127.0.0.1'],
    now: () => new Date(),
    client,
    endpointAfterReadSpacingMs: 0,
  });
  describes = 0;
  describesAtArrival = -1;
  const req: AttemptRequest = {
    deliveryId: `dlv_read_after_${preset}`,
    tenantId: 'tenant_read_after',
    endpointId,
    attempt: 1,
    event: { id: `msg_${preset}`, type: 'read.after', occurredAt: new Date().toISOString(), body: '{}' },
    createdAt: new Date().toISOString(),
    timeoutSeconds: 30,
    deliveryIdHeader: 'X-Delivery',
    preset,
    scheduledAt: Date.now(),
  };
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

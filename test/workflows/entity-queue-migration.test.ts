// Endpoints now start on the entity queue (src/shared/task-queues.ts). One an older Herald
// started on the main queue keeps being served there, and moves to the entity queue at its
// next roll-over, with its state. Time-skipping server, real workflows and activities.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reserveTurnsUpdate } from '../../src/shared/endpoint-messages.js';
import { ENDPOINT_WORKFLOW } from '../../src/shared/names.js';
import { entityTaskQueue } from '../../src/shared/task-queues.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
/** One past the permit updates a run takes before it rolls over (src/workflows/endpoint.ts). */
const PERMIT_UPDATES_TO_ROLL_OVER = 1_201;

describe('an endpoint started on the main queue moves to the entity queue (R-CRASH)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((_req, _i, res) => res.writeHead(200).end());
  });
  afterAll(async () => h?.close());

  it('R-CRASH: it delivers from the main queue, rolls over onto the entity queue with its config, and delivers from there', async () => {
    const endpointId = `ep_old_${Math.random().toString(36).slice(2, 8)}`;
    const now = await h.env.currentTimeMs();
    // As an older Herald started it: on the one queue it had.
    const ep = await h.env.client.workflow.start(ENDPOINT_WORKFLOW, {
      workflowId: endpointId,
      taskQueue: h.taskQueue,
      args: [
        {
          endpointId,
          tenantId: 'tenant_ep',
          config: { url: `${h.baseUrl}/${endpointId}`, preset: 'standard', createdBy: 'owner@tenant.test' },
          secrets: [{ secret: generateSecret(), createdAt: now }],
          createdAt: now,
        },
      ],
    });
    const firstRun = (await ep.describe()).runId;
    expect((await h.view(endpointId)).config.url).toBe(`${h.baseUrl}/${endpointId}`);
    await h.publish(endpointId, 'standard');
    await h.advanceUntil(async () => h.requestsFor(endpointId).length === 1, S, 30 * S);

    for (let sent = 0; sent < PERMIT_UPDATES_TO_ROLL_OVER; sent += 50) {
      const n = Math.min(50, PERMIT_UPDATES_TO_ROLL_OVER - sent);
      await Promise.all(
        Array.from({ length: n }, () =>
          ep.executeUpdate(reserveTurnsUpdate, { args: [{ deliveryIds: [] }] }),
        ),
      );
    }
    await h.advanceUntil(async () => (await ep.describe()).runId !== firstRun, S, 60 * S);

    const next = await ep.describe();
    expect(next.taskQueue).toBe(entityTaskQueue(h.taskQueue));
    expect(next.status.name).toBe('RUNNING');
    expect((await h.view(endpointId)).config.url).toBe(`${h.baseUrl}/${endpointId}`);
    await h.publish(endpointId, 'standard');
    await h.advanceUntil(async () => h.requestsFor(endpointId).length === 2, S, 30 * S);
  });
});

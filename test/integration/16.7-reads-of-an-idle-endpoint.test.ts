import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { endpointSnapshotQuery } from '../../src/shared/endpoint-messages.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

// Under a backlog the worker's workflow cache is full of deliveries asleep in backoff, so an
// endpoint nobody delivers to is evicted, and reading it (a query) makes the worker fetch its
// history. sdk-core 1.24 drops the activation of a run when two of its tasks wait together
// for a cache slot and the earlier one is a fetched history: two reads of one idle endpoint at
// once were enough, and from then on that endpoint answered nothing until the worker restarted
// (the wedge of BENCHMARKS.md's 50,000 backlog). Here the cache holds 3 workflows, deliveries
// and 6 idle endpoints keep it full, and every 100 ms each endpoint is read 4 times at once,
// as the API and the worker's caches may read one endpoint in one process. First attempts go
// as activities: with a cache smaller than the workflow-task slots, inline attempts would hold
// every cached run while they read their own endpoint.
describe('issue 16: reads of an idle endpoint while deliveries fill the worker cache', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  const receiver = new Receiver((_req, _i, res) => res.writeHead(503).end('busy'));
  let base: string;
  const idle: string[] = [];

  beforeAll(async () => {
    [w, base] = await Promise.all([
      startDevWorker({
        HERALD_WORKER_MAX_CACHED_WORKFLOWS: '3',
        HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '3',
        HERALD_WORKER_MAX_INLINE_ATTEMPTS: '0',
      }),
      receiver.start(),
    ]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config }));
    for (const name of ['busy', 'idle0', 'idle1', 'idle2', 'idle3', 'idle4', 'idle5']) {
      const res = await tenant.call('POST', '/v1/endpoints', {
        url: `${base}/${name}`,
        eventTypes: [`${name}.event`],
        // Each failed first attempt sleeps for hours: the deliveries stay in the cache.
        policy: { maxAttempts: 3, retryDelays: [6 * 3600] },
      });
      expect(res.status).toBe(201);
      const id = ((await res.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
      if (name !== 'busy') idle.push(id);
    }
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('R-CRASH: every read is answered, and the endpoints still answer when the load ends', async () => {
    const until = Date.now() + 45_000;
    let published = 0;
    const publishers = Array.from({ length: 2 }, async (_x, p) => {
      while (Date.now() < until) {
        const res = await tenant.call('POST', '/v1/events', {
          id: `busy_${p}_${published++}`,
          type: 'busy.event',
          payload: {},
        });
        expect(res.status).toBe(202);
      }
    });
    let reads = 0;
    const reader = (async () => {
      while (Date.now() < until) {
        const burst = Promise.all(
          idle.flatMap((id) =>
            Array.from({ length: 4 }, () => w.client.workflow.getHandle(id).query(endpointSnapshotQuery)),
          ),
        );
        // A wedged endpoint never answers: its reads hang until the query's own deadline.
        const answered = await Promise.race([burst.then(() => true), delay(20_000).then(() => false)]);
        expect(answered, `a burst of reads after ${reads} answered ones`).toBe(true);
        reads += idle.length * 4;
        await delay(100);
      }
    })();
    await Promise.all([...publishers, reader]);
    // The load made the worker fetch these endpoints again and again (the cache was full).
    expect(published).toBeGreaterThan(100);
    for (const id of idle) {
      const snap = await Promise.race([
        w.client.workflow.getHandle(id).query(endpointSnapshotQuery),
        delay(20_000).then(() => undefined),
      ]);
      expect(snap?.endpointId, `endpoint ${id} answers after the load`).toBe(id);
    }
  }, 120_000);
});

// Issue 20 ("must show"): with OTEL_EXPORTER_OTLP_ENDPOINT set, one publish is one trace:
// the API's POST /v1/events span, the client's StartWorkflow span, the delivery workflow's
// spans and one RunActivity:sendAttempt span per HTTP attempt, received by a collector on
// loopback. (The RunWorkflow span itself ends, and is exported, only when the delivery
// workflow closes after its replay window; its id is the workflow spans' parent.)
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { flushTracing, shutdownTracing, tracedClient } from '../../src/observability/tracing.js';
import { createHeraldWorker } from '../../src/worker.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';
import { devServerClients, testConfig } from '../helpers/temporal.js';
import { OtlpCollector, type CollectedSpan } from './otlp-collector.js';

describe('issue 20: one trace from POST /v1/events to each HTTP attempt', () => {
  const collector = new OtlpCollector();
  const receiver = new Receiver((_r, i, res) =>
    res.writeHead(i === 0 ? 503 : 200).end(i === 0 ? 'busy' : 'ok'),
  );
  let t: Awaited<ReturnType<typeof devServerClients>>;
  let stop: () => Promise<void>;
  let tenant: TenantSession;
  let base: string;

  beforeAll(async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = await collector.start();
    [t, base] = await Promise.all([devServerClients(), receiver.start()]);
    const config = testConfig();
    // No prebuilt bundle: the worker bundles the workflows with the tracing interceptors.
    const { worker, close } = await createHeraldWorker({
      connection: t.nativeConnection,
      config,
      client: t.client,
    });
    const running = worker.run();
    stop = async () => {
      worker.shutdown();
      await running;
      await close();
    };
    const app = createApp({ client: tracedClient(t.client, config), config });
    tenant = await newTenant(app);
  });

  afterAll(async () => {
    await stop?.();
    await shutdownTracing();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await t?.close();
    await receiver.stop();
    await collector.stop();
  });

  it('the publish span is the root; StartWorkflow, the workflow spans and one span per attempt hang under it', async () => {
    const e = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}/traced`,
      eventTypes: ['t.one'],
      policy: { maxAttempts: 3, retryDelays: [1], timeoutSeconds: 5 },
    });
    expect(e.status).toBe(201);
    // An endpoint the event skips (paused), so the event has its record workflow (issue 16 (4)) to trace.
    const skipped = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}/skipped`,
      preset: 'smengo',
      eventTypes: ['t.one'],
    });
    expect(skipped.status).toBe(201);
    const skippedId = ((await skipped.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
    expect((await tenant.call('POST', `/v1/endpoints/${skippedId}/pause`)).status).toBe(200);
    const r = await tenant.call('POST', '/v1/events', {
      id: 'traced-1',
      type: 't.one',
      payload: { secret: 'never-in-a-span' },
    });
    expect(r.status).toBe(202);
    const deliveryId = ((await r.json()) as { deliveries: Array<{ id: string }> }).deliveries[0]!.id;
    await receiver.waitFor(2, 60_000);

    let trace: CollectedSpan[] = [];
    const root = () => collector.spans.find((s) => s.name === 'POST /v1/events');
    for (let i = 0; i < 50; i++) {
      await flushTracing();
      const publish = root();
      trace = publish ? collector.spans.filter((s) => s.traceId === publish.traceId) : [];
      if (trace.filter((s) => s.name === 'RunActivity:sendAttempt').length >= 2) break;
      await delay(200);
    }
    const publish = root()!;
    expect(publish, JSON.stringify(collector.spans.map((s) => s.name))).toBeDefined();
    expect(publish.parentSpanId).toBeUndefined();
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const named = (name: string) => trace.filter((s) => s.name === name);

    const start = named('StartWorkflow:deliveryWorkflow').filter(
      (s) => s.attributes.temporalWorkflowId === deliveryId,
    );
    expect(start).toHaveLength(1);
    expect(start[0]!.parentSpanId).toBe(publish.spanId);
    // The event workflow ran to its end under its own StartWorkflow span.
    const eventStart = named('StartWorkflow:eventWorkflow');
    expect(eventStart.map((s) => s.parentSpanId)).toEqual([publish.spanId]);
    expect(named('RunWorkflow:eventWorkflow').map((s) => s.parentSpanId)).toEqual([eventStart[0]!.spanId]);
    // The delivery workflow's own spans: one StartActivity per attempt, under its RunWorkflow span.
    const scheduled = named('StartActivity:sendAttempt');
    expect(scheduled).toHaveLength(2);
    const runWorkflowId = scheduled[0]!.parentSpanId;
    expect(runWorkflowId).toBeDefined();
    expect(scheduled.every((s) => s.parentSpanId === runWorkflowId)).toBe(true);
    expect(scheduled.every((s) => s.attributes.workflowId === deliveryId)).toBe(true);
    // One span per HTTP attempt, each under the workflow's StartActivity span.
    const attempts = named('RunActivity:sendAttempt');
    expect(attempts).toHaveLength(2);
    expect(attempts.map((a) => byId.get(a.parentSpanId!)?.name)).toEqual([
      'StartActivity:sendAttempt',
      'StartActivity:sendAttempt',
    ]);
    expect(receiver.requests).toHaveLength(2);
    // Spans carry names and ids, never the event's body.
    expect(JSON.stringify(collector.spans)).not.toContain('never-in-a-span');
  });
});

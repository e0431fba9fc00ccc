import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { HeraldClient, type PublishTarget } from '../../src/client.js';
import { SA_PRESET } from '../../src/shared/search-attributes.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * Issue 15 step 3: HeraldClient publishes through the same use case as the API, so an
 * endpoint's own preset, event-type filter and health admission hold whoever publishes.
 * Before, the caller named the preset and the client skipped filter and admission.
 */
describe('15.3 HeraldClient.publish has the API’s semantics', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  let herald: HeraldClient;
  const receiver = new Receiver();
  let base: string;
  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config }), '15.3');
    herald = new HeraldClient(w.client, w.config);
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  async function birdEndpoint(body: Record<string, unknown> = {}): Promise<string> {
    const r = await tenant.call('POST', '/v1/endpoints', { url: `${base}/bird`, preset: 'bird', ...body });
    expect(r.status).toBe(201);
    return ((await r.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
  }
  // What a caller wrote before: its own preset beside the endpoint id. It is ignored now.
  const naming = (endpointId: string) => ({ endpointId, preset: 'standard' }) as PublishTarget;

  it("R-BIRD-RETRY: a delivery published to a Bird endpoint runs Bird's policy, whatever preset the caller names", async () => {
    const endpointId = await birdEndpoint();
    const rec = await herald.publish({
      tenantId: tenant.tenantId,
      type: 'order.created',
      payload: { n: 1 },
      targets: [naming(endpointId)],
    });
    expect(rec.deliveries).toHaveLength(1);
    const d = await w.client.workflow.getHandle(rec.deliveries[0]!.id).describe();
    expect(d.typedSearchAttributes.get(SA_PRESET)).toBe('bird');
  });

  it('R-BIRD-HEALTH: a paused Bird endpoint takes no new event from HeraldClient (skipped, never attempted)', async () => {
    const endpointId = await birdEndpoint();
    expect((await tenant.call('POST', `/v1/endpoints/${endpointId}/pause`)).status).toBe(200);
    const rec = await herald.publish({
      tenantId: tenant.tenantId,
      type: 'order.created',
      payload: { n: 2 },
      targets: [naming(endpointId)],
    });
    expect(rec.deliveries).toEqual([]);
    expect(rec.skipped).toEqual([{ endpointId, reason: 'endpoint_paused' }]);
  });

  it('R-FILTER: an event type the endpoint does not subscribe to is not delivered', async () => {
    const endpointId = await birdEndpoint({ eventTypes: ['invoice.paid'] });
    const rec = await herald.publish({
      tenantId: tenant.tenantId,
      type: 'order.created',
      payload: { n: 3 },
      targets: [naming(endpointId)],
    });
    expect(rec.deliveries).toEqual([]);
  });
});

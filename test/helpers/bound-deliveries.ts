import type { Client } from '@temporalio/client';
import { statusClause } from '../../src/store/visibility.js';
import { startDelivery } from '../../src/deliveries/start-delivery.js';
import { startEndpoint } from '../../src/endpoints/start-endpoint.js';
import { resolvePolicy, type PolicyOverrides, type PresetName } from '../../src/policy/policy.js';
import type { EndpointConfig } from '../../src/shared/endpoint-types.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';

let seq = 0;

export async function createDevEndpoint(
  client: Client,
  taskQueue: string,
  preset: PresetName,
  url: string,
  extra: Partial<EndpointConfig> = {},
) {
  const endpointId = `ep_dev_${preset}_${Date.now()}_${++seq}`;
  const secret = generateSecret();
  const handle = await startEndpoint(client, taskQueue, {
    endpointId,
    tenantId: 'tenant_dev',
    config: { url, preset, createdBy: 'owner@tenant.test', ...extra },
    secrets: [{ secret, createdAt: Date.now() }],
    createdAt: Date.now(),
  });
  return { endpointId, secret, handle };
}

/** Publishes `n` endpoint-bound deliveries in order; ids sort in creation order. */
export async function publishBound(
  client: Client,
  taskQueue: string,
  endpointId: string,
  preset: PresetName,
  n: number,
  opts: { overrides?: PolicyOverrides; concurrency?: number; tag?: string } = {},
): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `dlv_${endpointId}_${opts.tag ?? 'x'}_${String(i).padStart(6, '0')}`);
  const policy = resolvePolicy(preset, opts.overrides);
  let next = 0;
  const one = async (i: number) => {
    const createdAt = new Date().toISOString();
    await startDelivery(client, taskQueue, {
      deliveryId: ids[i]!,
      tenantId: 'tenant_dev',
      endpointId,
      event: { id: `msg_${ids[i]}`, type: 'dev.test', occurredAt: createdAt, body: JSON.stringify({ seq: i }) },
      policy,
      createdAt,
    });
  };
  const workers = Array.from({ length: Math.min(opts.concurrency ?? 1, n) }, async () => {
    while (next < n) await one(next++);
  });
  await Promise.all(workers);
  return ids;
}

export async function countDeliveries(client: Client, endpointId: string, status: string): Promise<number> {
  const r = await client.workflowService.countWorkflowExecutions({
    namespace: client.options.namespace,
    // Issue 16: the status as the index shows it (a succeeded run is never upserted).
    query: `HeraldEndpoint = '${endpointId}' AND ${statusClause(status)} AND WorkflowType = 'deliveryWorkflow'`,
  });
  return Number(r.count ?? 0);
}

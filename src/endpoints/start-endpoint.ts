import type { Client } from '@temporalio/client';
import type { EndpointInput } from '../shared/endpoint-types.js';
import { ENDPOINT_WORKFLOW } from '../shared/names.js';
import { initialHealth } from '../health/engine.js';
import { HEALTH_MEMO_KEY } from '../shared/health-memo.js';
import { SNAPSHOT_MEMO_KEY } from '../shared/snapshot-memo.js';
import { SA_ENDPOINT, SA_ENDPOINT_STATUS, SA_PRESET, SA_TENANT } from '../shared/search-attributes.js';

/** Starts the endpoint's entity workflow; its workflow id is the endpoint id. */
export async function startEndpoint(client: Client, taskQueue: string, input: EndpointInput) {
  return client.workflow.start(ENDPOINT_WORKFLOW, {
    workflowId: input.endpointId,
    taskQueue,
    args: [input],
    // Issue 16: the health deliveries read by describe, and the first snapshot revision,
    // there from the start (no command).
    memo: { [HEALTH_MEMO_KEY]: input.carried?.health ?? initialHealth(), [SNAPSHOT_MEMO_KEY]: 0 },
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: [
      { key: SA_TENANT, value: input.tenantId },
      { key: SA_ENDPOINT, value: input.endpointId },
      { key: SA_PRESET, value: input.config.preset },
      // Issue 14.14: from the first moment the endpoint is listed; the workflow upserts changes.
      { key: SA_ENDPOINT_STATUS, value: (input.carried?.health ?? initialHealth()).status },
    ],
  });
}

import type { Client } from '@temporalio/client';
import { endpointSnapshotQuery } from '../../src/shared/endpoint-messages.js';
import type { EndpointSnapshot } from '../../src/shared/endpoint-types.js';

/**
 * A stand-in Temporal client for the send activity's unit tests: one endpoint workflow that
 * answers its snapshot query with `snapshot()`, and no tenant workflow (the subscription
 * query fails, so nothing is deferred for it). `handle` adds the endpoint's other calls (given
 * the workflow id they are made on, when a function).
 */
export function endpointOnlyClient(
  snapshot: () => EndpointSnapshot | Promise<EndpointSnapshot>,
  handle: Record<string, unknown> | ((workflowId: string) => Record<string, unknown>) = {},
): Client {
  return {
    workflow: {
      getHandle: (workflowId: string) => ({
        query: async (q: { name: string }) => {
          if (q.name !== endpointSnapshotQuery.name) throw new Error('no such workflow');
          return snapshot();
        },
        ...(typeof handle === 'function' ? handle(workflowId) : handle),
      }),
    },
  } as unknown as Client;
}

import { ServiceError, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import { newApiKey } from '../../../src/api/keys.js';
import { loadConfig } from '../../../src/config.js';
import { DELIVERY_WORKFLOW } from '../../../src/shared/names.js';
import { SA_TENANT } from '../../../src/shared/search-attributes.js';
import { tenantKeysQuery } from '../../../src/shared/tenant-messages.js';

const TENANT = 'tn_outage1';
const key = newApiKey(TENANT);

const OWNED_DELIVERY = 'dlv_owned1';
const ownedDescription = (workflowId: string) => ({
  workflowId,
  type: DELIVERY_WORKFLOW,
  startTime: new Date(),
  status: { name: 'RUNNING' },
  typedSearchAttributes: { get: (k: { name: string }) => (k.name === SA_TENANT.name ? TENANT : undefined) },
});

/**
 * A Temporal that answers the tenant's key lookup (cached by the API from before the
 * outage) and nothing else: every other read fails as an unreachable server does.
 */
function clientDuringOutage(): Client {
  const down = () => Promise.reject(new ServiceError('14 UNAVAILABLE: No connection established'));
  return {
    options: { namespace: 'default' },
    workflow: {
      getHandle: (id: string) => ({
        workflowId: id,
        query: (q: unknown) => (q === tenantKeysQuery && id === TENANT ? Promise.resolve([key]) : down()),
        // The delivery's description still answers; its workflow's state query does not.
        describe: () => (id === OWNED_DELIVERY ? Promise.resolve(ownedDescription(id)) : down()),
        result: down,
        fetchHistory: down,
      }),
      list: () => ({
        [Symbol.asyncIterator]: () => ({ next: down }),
      }),
    },
    workflowService: { getWorkflowExecutionHistory: down, countWorkflowExecutions: down },
  } as unknown as Client;
}

describe('issue 15 owned lookups: a Temporal outage is a 503, never a 404', () => {
  const app = createApp({
    client: clientDuringOutage(),
    config: loadConfig({ HERALD_TASK_QUEUE: 'outage-test' }),
  });
  const get = (path: string) => app.request(path, { headers: { authorization: `Bearer ${key.key}` } });

  for (const path of [
    '/v1/deliveries/dlv_abc123',
    `/v1/deliveries/${OWNED_DELIVERY}`,
    '/v1/events/evt_abc123',
    '/v1/sources/src_0123456789abcdef0123456789abcdef',
    '/v1/endpoints/ep_abc123',
  ]) {
    it(`R-API: GET ${path} with Temporal unreachable answers 503 temporal_unavailable`, async () => {
      const res = await get(path);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(((await res.json()) as { code: string }).code).toBe('temporal_unavailable');
    });
  }
});

/** A Temporal that answers, and refuses one list as an invalid request (gRPC INVALID_ARGUMENT). */
function clientRefusingTheList(): Client {
  const refused = () =>
    Promise.reject(
      new ServiceError('Failed to list workflows', {
        cause: Object.assign(new Error('3 INVALID_ARGUMENT: invalid query'), {
          code: 3,
          details: 'invalid query',
          metadata: {},
        }),
      }),
    );
  const base = clientDuringOutage() as unknown as { workflow: Record<string, unknown> };
  return {
    ...base,
    workflow: { ...base.workflow, list: () => ({ [Symbol.asyncIterator]: () => ({ next: refused }) }) },
  } as unknown as Client;
}

describe('issue 15: a request Temporal refuses is not an outage', () => {
  const get = (client: Client, path: string) =>
    createApp({ client, config: loadConfig({ HERALD_TASK_QUEUE: 'outage-test' }) }).request(path, {
      headers: { authorization: `Bearer ${key.key}` },
    });

  it('R-API: a list bound outside years 1970-9999 in UTC is refused 400 validation_failed before any query', async () => {
    for (const since of [
      '9999-12-31T23:59:59-23:59',
      '0000-01-01T00:00:00%2B01:00',
      '1969-12-31T23:59:59Z',
    ]) {
      const res = await get(clientDuringOutage(), `/v1/deliveries?since=${since}`);
      expect(res.status, since).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('validation_failed');
    }
  });

  it('R-API: Temporal refusing a request as invalid answers 500 internal_error, never 503 "retry"', async () => {
    const res = await get(clientRefusingTheList(), '/v1/deliveries');
    expect(res.status).toBe(500);
    expect(((await res.json()) as { code: string }).code).toBe('internal_error');
  });
});

import type { Client } from '@temporalio/client';
import { startEndpoint } from '../endpoints/start-endpoint.js';
import {
  deleteEndpointUpdate,
  pauseEndpointUpdate,
  resumeEndpointUpdate,
  rotateSecretUpdate,
  sendTestUpdate,
  updateEndpointUpdate,
  verifyEndpointUpdate,
} from '../shared/endpoint-messages.js';
import type { EndpointInput, EndpointPatch, EndpointView, TestResult } from '../shared/endpoint-types.js';
import type { ChallengeResult, VerificationView } from '../shared/verification.js';
import type { Directory } from './directory.js';
import { unlessNotFound } from './not-found.js';

/** What the endpoint use cases (core/endpoints.ts) need of Temporal; a fake in the unit tests. */
export interface EndpointStore {
  /** The tenant's endpoint; `undefined` when missing or another tenant's. */
  endpoint(tenantId: string, endpointId: string): Promise<EndpointView | undefined>;
  endpointCount(tenantId: string): Promise<number>;
  start(input: EndpointInput): Promise<void>;
  // The changes answer `undefined` when the endpoint's workflow has closed since it was read
  // (a delete that raced this request): the endpoint is gone, not Temporal.
  update(endpointId: string, patch: EndpointPatch): Promise<EndpointView | undefined>;
  remove(endpointId: string): Promise<true | undefined>;
  pause(endpointId: string): Promise<EndpointView | undefined>;
  resume(endpointId: string): Promise<EndpointView | undefined>;
  sendTest(endpointId: string): Promise<TestResult | undefined>;
  rotateSecret(endpointId: string, secret: string, graceSeconds: number): Promise<EndpointView | undefined>;
  verify(
    endpointId: string,
  ): Promise<{ verification: VerificationView; result?: ChallengeResult } | undefined>;
  /** The tenant's endpoints changed: cached reads must look again. */
  changed(tenantId: string): void;
}

/** Endpoints as their workflows keep them: reads through the cached directory, writes as updates. */
export function temporalEndpointStore(deps: {
  client: Client;
  taskQueue: string;
  directory: Directory;
}): EndpointStore {
  const { client, taskQueue, directory } = deps;
  const handle = (id: string) => client.workflow.getHandle(id);
  return {
    endpoint: (tenantId, id) => directory.endpoint(tenantId, id),
    endpointCount: (tenantId) => directory.endpointCount(tenantId),
    async start(input) {
      await startEndpoint(client, taskQueue, input);
      directory.rememberCreated(input.tenantId, input.endpointId);
    },
    update: (id, patch) => unlessNotFound(handle(id).executeUpdate(updateEndpointUpdate, { args: [patch] })),
    remove: async (id) => (await unlessNotFound(handle(id).executeUpdate(deleteEndpointUpdate))) && true,
    pause: (id) => unlessNotFound(handle(id).executeUpdate(pauseEndpointUpdate)),
    resume: (id) => unlessNotFound(handle(id).executeUpdate(resumeEndpointUpdate)),
    sendTest: (id) => unlessNotFound(handle(id).executeUpdate(sendTestUpdate)),
    rotateSecret: (id, secret, graceSeconds) =>
      unlessNotFound(handle(id).executeUpdate(rotateSecretUpdate, { args: [{ secret, graceSeconds }] })),
    verify: (id) => unlessNotFound(handle(id).executeUpdate(verifyEndpointUpdate)),
    changed: (tenantId) => directory.forgetEndpoints(tenantId),
  };
}

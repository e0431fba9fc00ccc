import { createRoute, z } from '@hono/zod-openapi';
import { problemResponse } from '../openapi.js';
import {
  createEndpointSchema,
  endpointViewSchema,
  idParam,
  patchEndpointSchema,
  rotateSecretResultSchema,
  testResultSchema,
} from '../schemas.js';
import { verifyResultSchema } from '../verification-schemas.js';

const params = idParam('ep');
const json = <T extends z.ZodType>(schema: T) => ({
  content: { 'application/json': { schema } },
  required: true,
});
const viewResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: endpointViewSchema } },
});

export const createEndpoint = createRoute({
  method: 'post',
  path: '/',
  summary: 'Create an endpoint; its signing secret is returned once',
  request: { body: json(createEndpointSchema) },
  responses: {
    201: {
      description: 'Created',
      content: {
        'application/json': {
          schema: z.object({
            endpoint: endpointViewSchema,
            secret: z.string(),
            /** Shown once, when the endpoint has an operational webhook. */
            operationalWebhookSecret: z.string().optional(),
          }),
        },
      },
    },
    400: problemResponse('Invalid endpoint'),
    409: problemResponse('endpoint_limit_reached: HERALD_MAX_ENDPOINTS_PER_TENANT endpoints already'),
  },
});

export const listEndpoints = createRoute({
  method: 'get',
  path: '/',
  summary: "List the tenant's endpoints, newest first",
  responses: {
    200: {
      description: 'Endpoints',
      content: { 'application/json': { schema: z.object({ data: z.array(endpointViewSchema) }) } },
    },
  },
});

export const getEndpoint = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One endpoint with its health and banner',
  request: { params },
  responses: { 200: viewResponse('The endpoint'), 404: problemResponse('No such endpoint') },
});

export const patchEndpoint = createRoute({
  method: 'patch',
  path: '/{id}',
  summary:
    'Change URL, description, event types, policy, operational webhook, transformation or verification ' +
    '(a new URL under verification `challenge` is verified again)',
  request: { params, body: json(patchEndpointSchema) },
  responses: {
    200: viewResponse('Updated'),
    400: problemResponse('Invalid change'),
    404: problemResponse('No such endpoint'),
  },
});

export const deleteEndpoint = createRoute({
  method: 'delete',
  path: '/{id}',
  summary: 'Delete the endpoint; its pending deliveries end dead',
  request: { params },
  responses: { 204: { description: 'Deleted' }, 404: problemResponse('No such endpoint') },
});

const action = <S extends z.ZodType>(path: string, summary: string, schema: S) =>
  createRoute({
    method: 'post',
    path: `/{id}/${path}`,
    summary,
    request: { params },
    responses: {
      200: { description: 'Done', content: { 'application/json': { schema } } },
      404: problemResponse('No such endpoint'),
    },
  });

export const pauseEndpoint = action(
  'pause',
  'Pause (R-SMENGO-PAUSE; Bird: writable status paused)',
  endpointViewSchema,
);
export const resumeEndpoint = action(
  'resume',
  'Resume or re-enable (Smengo: send a test, see 2xx, enable)',
  endpointViewSchema,
);
export const testEndpoint = action(
  'test',
  'Send a test delivery now, whatever the endpoint state',
  testResultSchema,
);
export const rotateSecret = action(
  'rotate-secret',
  'New signing secret; the old one keeps signing for graceSeconds (default 24 h)',
  rotateSecretResultSchema,
);

// Issue 14.15: repeats the challenge and answers with what came of it.
export const verifyEndpoint = createRoute({
  method: 'post',
  path: '/{id}/verify',
  summary: 'Send the verification challenge again and answer with the outcome',
  description:
    'Under verification `challenge` only. 200 with `verified` and the new verification state; `result` ' +
    'holds the HTTP status and, when not verified, the code (http_<status>, network_<CODE>, timeout, ' +
    'private_address, challenge_mismatch, ...). The answer comes once the receiver answered or timed out.',
  request: { params },
  responses: {
    200: {
      description: 'The challenge was sent',
      content: { 'application/json': { schema: verifyResultSchema } },
    },
    404: problemResponse('No such endpoint'),
    409: problemResponse('verification_not_enabled: the endpoint has verification `none`'),
  },
});

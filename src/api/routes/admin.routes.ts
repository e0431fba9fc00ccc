import { createRoute, z } from '@hono/zod-openapi';
import type { TenantView } from '../../shared/tenant-types.js';
import { problemResponse } from '../openapi.js';
import { rateLimitSchema } from '../flow-schemas.js';

// Operator routes (HERALD_OPERATOR_KEY): tenants and their API keys.

export const tenantViewSchema = z
  .object({
    tenantId: z.string(),
    name: z.string(),
    billingEmail: z.string().optional(),
    subscriptionActive: z.boolean(),
    createdAt: z.number(),
    apiKeys: z.array(
      z.object({ keyId: z.string(), createdAt: z.number(), revokedAt: z.number().optional() }),
    ),
    rateLimit: z.object({ perSecond: z.number(), burst: z.number().optional() }).optional(),
  })
  .openapi('Tenant') satisfies z.ZodType<TenantView>;

const createTenantSchema = z.strictObject({
  name: z.string().min(1).max(200),
  billingEmail: z.email().optional(),
});

const tenantParam = z.object({ tenantId: z.string().regex(/^tn_[A-Za-z0-9]+$/) });
const keyParams = tenantParam.extend({
  keyId: z.string().regex(/^key_[a-f0-9]+$/, 'a key id starting with key_'),
});

const unavailable = problemResponse('temporal_unavailable: Temporal did not answer; retry');

export const createTenant = createRoute({
  method: 'post',
  path: '/tenants',
  summary: 'Create a tenant and its first API key (shown once)',
  request: { body: { content: { 'application/json': { schema: createTenantSchema } }, required: true } },
  responses: {
    201: {
      description: 'Created',
      content: {
        'application/json': { schema: z.object({ tenant: tenantViewSchema, apiKey: z.string() }) },
      },
    },
    400: problemResponse('Invalid body'),
    401: problemResponse('No operator key'),
    503: unavailable,
  },
});

export const getTenant = createRoute({
  method: 'get',
  path: '/tenants/{tenantId}',
  request: { params: tenantParam },
  responses: {
    200: { description: 'The tenant', content: { 'application/json': { schema: tenantViewSchema } } },
    404: problemResponse('No such tenant'),
    503: unavailable,
  },
});

export const issueKey = createRoute({
  method: 'post',
  path: '/tenants/{tenantId}/keys',
  summary: 'Issue another API key (shown once)',
  request: { params: tenantParam },
  responses: {
    201: {
      description: 'Created',
      content: { 'application/json': { schema: z.object({ keyId: z.string(), apiKey: z.string() }) } },
    },
    404: problemResponse('No such tenant'),
    503: unavailable,
  },
});

export const revokeKey = createRoute({
  method: 'delete',
  path: '/tenants/{tenantId}/keys/{keyId}',
  summary: 'Revoke an API key: refused at once by this API process, by the others within ~2 s',
  description:
    'The key stays listed with its `revokedAt`; revoking it again changes nothing. Other API ' +
    'processes cache keys for 2 s (up to 30 s while Temporal is slow to answer).',
  request: { params: keyParams },
  responses: {
    200: { description: 'Revoked', content: { 'application/json': { schema: tenantViewSchema } } },
    401: problemResponse('No operator key'),
    404: problemResponse('tenant_not_found or key_not_found'),
    503: unavailable,
  },
});

export const setSubscription = createRoute({
  method: 'put',
  path: '/tenants/{tenantId}/subscription',
  summary: 'Set the subscription active or inactive (R-SMENGO-INACTIVE)',
  request: {
    params: tenantParam,
    body: {
      content: { 'application/json': { schema: z.strictObject({ active: z.boolean() }) } },
      required: true,
    },
  },
  responses: {
    200: { description: 'Updated', content: { 'application/json': { schema: tenantViewSchema } } },
    404: problemResponse('No such tenant'),
    503: unavailable,
  },
});

// Issue 17: the operator's limit on all of a tenant's sends, across its endpoints and workers.
export const setTenantRateLimit = createRoute({
  method: 'put',
  path: '/tenants/{tenantId}/rate-limit',
  summary: "Set (or with null remove) the tenant's rate limit over all its endpoints (R-RH-DEFER)",
  description:
    'Every send of the tenant takes its turn in one schedule kept by the tenant workflow: a send over the ' +
    'limit is deferred (`rate_limited`, no attempt spent) and goes out when its turn comes.',
  request: {
    params: tenantParam,
    body: {
      content: { 'application/json': { schema: z.strictObject({ rateLimit: rateLimitSchema.nullable() }) } },
      required: true,
    },
  },
  responses: {
    200: { description: 'Updated', content: { 'application/json': { schema: tenantViewSchema } } },
    400: problemResponse('invalid_flow_option'),
    404: problemResponse('No such tenant'),
    503: unavailable,
  },
});

import { createRoute, z } from '@hono/zod-openapi';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import type { Config } from '../../config.js';
import { createPolicyResolver } from '../../deliveries/policy-resolver.js';
import { forwardBodyBytes, forwardHeaderList } from '../../inbound/forward-request.js';
import {
  DESTINATION_ID,
  FORWARD_ID,
  SOURCE_ID,
  forwardInput,
  retryForwardId,
  startForward,
} from '../../inbound/forwards.js';
import type { SourceCache } from '../../inbound/source-cache.js';
import type { DeliveryInput, DeliveryStatus } from '../../shared/delivery-types.js';
import { FORWARD_WORKFLOW } from '../../shared/names.js';
import { SA_ENDPOINT, SA_EVENT_TYPE, SA_STATUS, SA_TENANT } from '../../shared/search-attributes.js';
import { TransformSandbox, sandboxOptionsFrom } from '../../transform/sandbox.js';
import { overrideHeaderList, transformForSend, type Transformer } from '../../transform/send.js';
import type { TenantEnv } from '../auth.js';
import { startInputOf } from '../../store/delivery-envelope.js';
import { and, eq, ofType } from '../../store/visibility.js';
import { problemResponse, router } from '../openapi.js';
import { ProblemError, fail } from '../problem.js';
import { boundedMap, tryEach } from '../../shared/bounded-map.js';
import {
  deliveryState,
  newestDeliveries,
  refOf,
  statusIn,
  type DeliveryRef,
} from '../../store/deliveries.js';
import { attemptCount, lastError, presentState } from '../../shared/delivery-view.js';
import { DELIVERY_STATUSES, attemptSchema } from '../delivery-schemas.js';

/** "Undelivered forwards" (Railhook's forward dead-letter list): forwards that gave up. */
const UNDELIVERED: DeliveryStatus[] = ['exhausted', 'failed'];
/** Most undelivered forwards one bulk retry takes on. */
const BULK_RETRY_LIMIT = 1000;

const forwardRowSchema = z
  .object({
    id: z.string(),
    sourceId: z.string(),
    destinationId: z.string(),
    requestId: z.string(),
    status: z.string(),
    createdAt: z.string(),
  })
  .openapi('ForwardRow');

const undeliveredSchema = forwardRowSchema
  .extend({
    attemptCount: z.number(),
    lastError: z.string().nullable(),
    /** The forward a retry already made from this one; retrying again answers 409. */
    retriedAs: z.string().nullable(),
  })
  .openapi('UndeliveredForward');

const bodySchema = z.object({
  /** `utf8`: `body` is the text; `base64`: the bytes were not UTF-8. */
  encoding: z.enum(['utf8', 'base64']),
  body: z.string(),
});

const forwardSchema = z
  .object({
    id: z.string(),
    sourceId: z.string(),
    destinationId: z.string(),
    requestId: z.string(),
    status: z.string(),
    createdAt: z.string(),
    retryOf: z.string().optional(),
    url: z.string(),
    original: bodySchema.extend({
      receivedAt: z.string(),
      headers: z.array(z.tuple([z.string(), z.string()])),
    }),
    forwarded: bodySchema.extend({
      method: z.string(),
      headers: z.array(z.tuple([z.string(), z.string()])),
      /**
       * Set when a transformation rewrites the request at send time (R-RH-TRANSFORM): body,
       * headers and method are then its result on the original request, evaluated for this view.
       */
      transformation: z.string().optional(),
      /** Why the transformation fails (the forward's attempts then fail `transformation_failed`). */
      transformationError: z.string().optional(),
    }),
    attemptCount: z.number(),
    attemptBudget: z.number(),
    lastError: z.string().optional(),
    nextAttemptAt: z.string().optional(),
    attempts: z.array(attemptSchema),
  })
  .openapi('Forward');

const forwardParams = z.object({ id: z.string().max(64) });

const rowOf = (r: DeliveryRef) => ({
  id: r.id,
  sourceId: r.eventType,
  destinationId: r.endpointId,
  requestId: r.eventId,
  status: r.status,
  createdAt: r.createdAt,
});

function forwardsQuery(tenantId: string, ...extra: Array<string | undefined>) {
  return and(ofType(FORWARD_WORKFLOW), eq(SA_TENANT, tenantId), ...extra);
}

/** The forward's input (original request and body): the first event of its history only. */
const forwardInputOf = (client: Client, id: string) => startInputOf<DeliveryInput>(client, id);

async function exists(client: Client, id: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(id).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** R-RH-INBOUND: the forward log, its dead letters ("undelivered forwards") and their retry. */
export function forwardsRouter(deps: {
  client: Client;
  config: Config;
  sources: SourceCache;
  /** Evaluates a destination's transformation for the forward log; by default one of its own, on first use. */
  sandbox?: Transformer;
}) {
  const app = router<TenantEnv>();
  const { client, config, sources } = deps;
  const resolve = createPolicyResolver(config);
  let ownSandbox: Transformer | undefined;
  const sandbox = () => deps.sandbox ?? (ownSandbox ??= new TransformSandbox(sandboxOptionsFrom(config)));

  const pairs = (flat: string[]) => {
    const out: Array<[string, string]> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
    return out;
  };

  /** What the forward sends: the original bytes and headers, or the transformation's request. */
  const forwardedView = async (input: DeliveryInput, attempt: number) => {
    const target = input.target!;
    const fwd = target.forward!;
    const headers = forwardHeaderList(fwd, input.policy.deliveryIdHeader, input.deliveryId, attempt);
    if (!target.transformation) {
      const bytes = forwardBodyBytes(input.event.body, fwd.bodyEncoding);
      return {
        encoding: fwd.bodyEncoding,
        body: fwd.bodyEncoding === 'base64' ? bytes.toString('base64') : bytes.toString('utf8'),
        method: 'POST',
        headers: pairs(headers),
      };
    }
    const t = await transformForSend(sandbox(), {
      deliveryId: input.deliveryId,
      attempt,
      event: input.event,
      target,
      timeoutSeconds: input.policy.timeoutSeconds,
      deliveryIdHeader: input.policy.deliveryIdHeader,
    });
    if (t.kind !== 'ok')
      return {
        encoding: 'utf8' as const,
        body: '',
        method: 'POST',
        headers: pairs(headers),
        transformation: target.transformation,
        transformationError: t.kind === 'none' ? 'no transformation' : t.reason,
      };
    return {
      encoding: 'utf8' as const,
      body: t.request.body,
      method: t.request.method,
      headers: pairs(overrideHeaderList(headers, t.request.headers)),
      transformation: target.transformation,
    };
  };

  const owned = async (tenantId: string, id: string) => {
    if (!FORWARD_ID.test(id)) fail(404, 'forward_not_found', 'No such forward');
    let d: WorkflowExecutionDescription;
    try {
      d = await client.workflow.getHandle(id).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) fail(404, 'forward_not_found', 'No such forward');
      throw err;
    }
    if (d.type !== FORWARD_WORKFLOW || d.typedSearchAttributes.get(SA_TENANT) !== tenantId)
      fail(404, 'forward_not_found', 'No such forward');
    return refOf(d);
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      summary: 'Forwards of received webhooks, newest first, by source, destination and status',
      request: {
        query: z.object({
          sourceId: z.string().regex(SOURCE_ID, 'a source id').optional(),
          destinationId: z.string().regex(DESTINATION_ID, 'a destination id').optional(),
          status: z.enum(DELIVERY_STATUSES as [DeliveryStatus, ...DeliveryStatus[]]).optional(),
          limit: z.coerce.number().int().min(1).max(500).default(100),
        }),
      },
      responses: {
        200: {
          description: 'Forwards',
          content: { 'application/json': { schema: z.object({ data: z.array(forwardRowSchema) }) } },
        },
        400: problemResponse('Invalid filter'),
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const query = forwardsQuery(
        c.get('tenantId'),
        q.sourceId && eq(SA_EVENT_TYPE, q.sourceId),
        q.destinationId && eq(SA_ENDPOINT, q.destinationId),
        q.status && eq(SA_STATUS, q.status),
      );
      const refs = await newestDeliveries(client, query, q.limit);
      return c.json({ data: refs.map(rowOf) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/dead-letters',
      summary: 'Undelivered forwards (exhausted or failed), newest first, with attempt count and last error',
      request: {
        query: z.object({
          sourceId: z.string().regex(SOURCE_ID, 'a source id').optional(),
          limit: z.coerce.number().int().min(1).max(500).default(100),
        }),
      },
      responses: {
        200: {
          description: 'Undelivered forwards',
          content: { 'application/json': { schema: z.object({ data: z.array(undeliveredSchema) }) } },
        },
        400: problemResponse('Invalid filter'),
      },
    }),
    async (c) => {
      const { sourceId, limit } = c.req.valid('query');
      const query = forwardsQuery(
        c.get('tenantId'),
        statusIn(UNDELIVERED),
        sourceId && eq(SA_EVENT_TYPE, sourceId),
      );
      const refs = await newestDeliveries(client, query, limit);
      const rows = await boundedMap(refs, 16, async (ref) => {
        const [s, retried] = await Promise.all([
          deliveryState(client, ref.id),
          exists(client, retryForwardId(ref.id)),
        ]);
        if (!s || !UNDELIVERED.includes(s.status)) return undefined;
        return {
          ...rowOf(ref),
          status: s.status,
          attemptCount: attemptCount(s),
          lastError: lastError(s) ?? null,
          retriedAs: retried ? retryForwardId(ref.id) : null,
        };
      });
      return c.json({ data: rows.filter((r) => r !== undefined) }, 200);
    },
  );

  /**
   * R-RH-INBOUND: retry of an undelivered forward: a new forward (new id, attempt 1, a fresh
   * 24 h lifetime) of the same request to the destination as configured now.
   */
  const retryOne = async (tenantId: string, id: string) => {
    const ref = await owned(tenantId, id);
    const state = await deliveryState(client, id);
    if (!state || !UNDELIVERED.includes(state.status))
      fail(
        409,
        'not_a_dead_letter',
        'This forward is not undelivered',
        `It is ${state?.status ?? 'unknown'}.`,
      );
    const old = await forwardInputOf(client, id);
    const fwd = old?.target?.forward;
    if (!old || !fwd) fail(409, 'not_retryable', 'This forward can no longer be retried');
    // The same destination as it is configured now: Railhook's advice is to fix the URL
    // or credentials, then retry. A forward names its source by public id (issue 13.7).
    const source = await sources.byPublicId(fwd.sourceId);
    const destination = source?.destinations.find((d) => d.destinationId === fwd.destinationId);
    if (!source || source.tenantId !== tenantId || !destination)
      fail(409, 'destination_gone', 'The destination of this forward no longer exists');
    const newId = retryForwardId(id);
    const input = forwardInput({
      forwardId: newId,
      tenantId,
      destination,
      policy: resolve('railhook', destination.policy, 'inbound'),
      request: {
        sourceId: fwd.sourceId,
        requestId: fwd.requestId,
        receivedAt: fwd.receivedAt,
        headers: fwd.headers,
        bodyEncoding: fwd.bodyEncoding,
        retryOf: id,
      },
      body: old.event.body,
      // A new forward: attempt 1 and a fresh 24 h lifetime (R-RH-LIFETIME).
      createdAt: new Date().toISOString(),
    });
    const created = await startForward(client, config.HERALD_TASK_QUEUE, input);
    if (!created)
      fail(409, 'already_retried', 'This forward was already retried', `The retry is ${newId}.`, {
        forwardId: newId,
      });
    return { id: newId, retryOf: ref.id, destinationId: destination.destinationId, status: 'pending' };
  };

  app.openapi(
    createRoute({
      method: 'post',
      path: '/dead-letters/retry',
      summary: `Retry many undelivered forwards: {ids} (at most ${BULK_RETRY_LIMIT}); each becomes a new forward`,
      request: {
        body: {
          content: {
            'application/json': {
              schema: z
                .strictObject({
                  ids: z.array(z.string().regex(FORWARD_ID, 'a forward id')).min(1).max(BULK_RETRY_LIMIT),
                })
                .openapi('BulkForwardRetry'),
            },
          },
          required: true,
        },
      },
      responses: {
        202: {
          description: 'The new forwards; the rest with the reason',
          content: {
            'application/json': {
              schema: z.object({
                retried: z.array(z.object({ id: z.string(), retryOf: z.string() })),
                failed: z.array(z.object({ id: z.string(), code: z.string() })),
              }),
            },
          },
        },
        400: problemResponse('Invalid body'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { done: retried, failed } = await tryEach(
        [...new Set(c.req.valid('json').ids)],
        8,
        async (id) => {
          const r = await retryOne(tenantId, id);
          return { id: r.id, retryOf: r.retryOf };
        },
        {
          codeOf: (e) => (e instanceof ProblemError ? e.code : undefined),
          idOf: (id) => id,
          what: 'forward retry',
        },
      );
      return c.json({ retried, failed }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/dead-letters/{id}/retry',
      summary:
        'Retry an undelivered forward: a new forward of the same request to the same destination, from attempt 1',
      request: { params: forwardParams },
      responses: {
        202: {
          description: 'The new forward',
          content: {
            'application/json': {
              schema: z.object({
                id: z.string(),
                retryOf: z.string(),
                destinationId: z.string(),
                status: z.string(),
              }),
            },
          },
        },
        404: problemResponse('No such forward'),
        409: problemResponse('Not undelivered, already retried, or the destination is gone'),
      },
    }),
    async (c) => c.json(await retryOne(c.get('tenantId'), c.req.valid('param').id), 202),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      summary:
        'One forward: the original request (headers and body as received), what is forwarded, and its attempts',
      request: { params: forwardParams },
      responses: {
        200: { description: 'The forward', content: { 'application/json': { schema: forwardSchema } } },
        404: problemResponse('No such forward'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const ref = await owned(tenantId, c.req.valid('param').id);
      const [s, input] = await Promise.all([deliveryState(client, ref.id), forwardInputOf(client, ref.id)]);
      const fwd = input?.target?.forward;
      if (!s || !input || !fwd)
        fail(404, 'forward_not_found', 'No such forward', 'Its log is past the retention period');
      const view = presentState(ref, s);
      const original = { encoding: fwd.bodyEncoding, body: input.event.body };
      const forwarded = await forwardedView(input, Math.max(1, s.attemptsInRound));
      return c.json(
        {
          id: ref.id,
          sourceId: fwd.sourceId,
          destinationId: fwd.destinationId,
          requestId: fwd.requestId,
          status: s.status,
          createdAt: ref.createdAt,
          ...(fwd.retryOf ? { retryOf: fwd.retryOf } : {}),
          url: input.target!.url,
          original: { ...original, receivedAt: fwd.receivedAt, headers: fwd.headers },
          forwarded,
          attemptCount: view.attemptCount,
          attemptBudget: view.attemptBudget,
          ...(view.lastError ? { lastError: view.lastError } : {}),
          ...(view.nextAttemptAt ? { nextAttemptAt: view.nextAttemptAt } : {}),
          attempts: view.attempts,
        },
        200,
      );
    },
  );

  return app;
}

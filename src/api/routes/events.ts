import { createRoute, z } from '@hono/zod-openapi';
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import { publishEvent } from '../../core/publish-event.js';
import { settingsFrom } from '../../settings.js';
import { eventWorkflowId, temporalPublishStore } from '../../store/events.js';
import { orProblem } from '../refusal-problem.js';
import { eventFromDeliveries } from '../../store/delivery-envelope.js';
import type { EventRecord } from '../../shared/event-types.js';
import { EVENT_WORKFLOW } from '../../shared/names.js';
import { SA_EVENT_ID, SA_EVENT_TYPE, SA_TENANT } from '../../shared/search-attributes.js';
import type { TenantEnv } from '../auth.js';
import type { Directory } from '../../store/directory.js';
import { and, eq, ofType } from '../../store/visibility.js';
import { fail, problem } from '../problem.js';
import { TokenBuckets } from '../rate-limit.js';
import { problemResponse, router } from '../openapi.js';
import { eventRowSchema, eventViewSchema, publishSchema } from '../schemas.js';

export const MAX_EVENT_BYTES = 256 * 1024;
/** Deeper JSON would overflow the stack of every recursive walk after it (JSON.stringify, codecs). */
export const MAX_EVENT_DEPTH = 64;

/** Nesting depth of JSON text, counted outside strings; no parsing, no recursion. */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) max = Math.max(max, ++depth);
    else if (ch === 125 || ch === 93) depth--;
  }
  return max;
}

const recordSchema = z
  .object({
    eventId: z.string(),
    type: z.string(),
    occurredAt: z.string(),
    deliveries: z.array(z.object({ id: z.string(), endpointId: z.string() })),
    skipped: z.array(z.object({ endpointId: z.string(), reason: z.string() })),
  })
  .openapi('PublishedEvent');

export function eventsRouter(deps: {
  client: Client;
  config: Config;
  directory: Directory;
  eagerStart?: boolean;
}) {
  const app = router<TenantEnv>();
  const { client, config, directory } = deps;
  const store = temporalPublishStore({
    client,
    taskQueue: settingsFrom(config).taskQueue,
    directory,
    eagerStart: deps.eagerStart,
  });
  const settings = settingsFrom(config).publish;

  // Issue 13.6: publishes per tenant, in this process (see rate-limit.ts).
  const publishes = new TokenBuckets({
    ratePerSecond: config.HERALD_PUBLISH_RATE_PER_SECOND,
    burst: config.HERALD_PUBLISH_BURST,
  });

  // The body limit is checked before JSON parsing, so a huge body costs nothing. The app's
  // streaming limit (body-limit.ts) has already refused anything larger, however it was sent.
  app.use('/', async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const rate = publishes.take(c.get('tenantId'), Date.now());
    if (!rate.allowed) {
      const seconds = Math.max(1, Math.ceil(rate.retryAfterMs / 1000));
      const res = problem(
        c,
        429,
        'rate_limited',
        'Too many publishes',
        `At most ${config.HERALD_PUBLISH_RATE_PER_SECOND} per second (bursts of ${config.HERALD_PUBLISH_BURST}); retry after ${seconds} s.`,
        { retryAfterSeconds: seconds },
      );
      res.headers.set('retry-after', String(seconds));
      return res;
    }
    const declared = Number(c.req.header('content-length') ?? 0);
    if (declared > MAX_EVENT_BYTES)
      fail(413, 'payload_too_large', `An event may be at most ${MAX_EVENT_BYTES} bytes`);
    const text = await c.req.raw.clone().text();
    if (Buffer.byteLength(text) > MAX_EVENT_BYTES)
      fail(413, 'payload_too_large', `An event may be at most ${MAX_EVENT_BYTES} bytes`);
    if (jsonDepth(text) > MAX_EVENT_DEPTH)
      fail(400, 'payload_too_deep', `An event may nest at most ${MAX_EVENT_DEPTH} levels`);
    await next();
  });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/',
      summary: 'Publish an event to every matching endpoint of the tenant (202 with the delivery ids)',
      request: {
        headers: z.object({
          'idempotency-key': z
            .string()
            .min(1)
            .max(128)
            .regex(/^[A-Za-z0-9_.:-]+$/)
            .optional(),
        }),
        body: { content: { 'application/json': { schema: publishSchema } }, required: true },
      },
      responses: {
        202: {
          description: 'Accepted: every delivery is durably started',
          content: { 'application/json': { schema: recordSchema } },
        },
        400: problemResponse('Invalid event; too_many_targets: more than HERALD_MAX_TARGETS_PER_PUBLISH'),
        413: problemResponse('Too large'),
        429: problemResponse("rate_limited: over the tenant's publish rate; see Retry-After"),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const published = await orProblem(
        publishEvent(store, settings, {
          tenantId: c.get('tenantId'),
          // R-IDEMP: the event id, else the Idempotency-Key header, names the event.
          eventId: body.id ?? c.req.valid('header')['idempotency-key'],
          type: body.type,
          payload: body.payload,
          targets: body.targets,
        }),
      );
      return c.json(published, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      summary: "The tenant's events, newest first, delivered or not (read back what was missed)",
      request: {
        query: z.object({
          type: z.string().max(128).optional(),
          limit: z.coerce.number().int().min(1).max(500).default(100),
        }),
      },
      responses: {
        200: {
          description: 'Events',
          content: {
            'application/json': { schema: z.object({ data: z.array(eventRowSchema) }) },
          },
        },
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { type, limit } = c.req.valid('query');
      const query = and(ofType(EVENT_WORKFLOW), eq(SA_TENANT, tenantId), type && eq(SA_EVENT_TYPE, type));
      const data: Array<{ eventId: string; type: string; createdAt: string }> = [];
      for await (const wf of client.workflow.list({ query, pageSize: limit })) {
        data.push({
          eventId: wf.typedSearchAttributes.get(SA_EVENT_ID) ?? '',
          type: wf.typedSearchAttributes.get(SA_EVENT_TYPE) ?? '',
          createdAt: wf.startTime.toISOString(),
        });
        if (data.length >= limit) break;
      }
      return c.json({ data }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/{eventId}',
      summary: 'One event: type, time, body and its deliveries',
      request: {
        params: z.object({
          eventId: z
            .string()
            .min(1)
            .max(128)
            .regex(/^[A-Za-z0-9_.:-]+$/),
        }),
      },
      responses: {
        200: {
          description: 'The event',
          content: { 'application/json': { schema: eventViewSchema } },
        },
        404: problemResponse('No such event'),
      },
    }),
    async (c) => {
      const handle = client.workflow.getHandle<() => Promise<EventRecord>>(
        eventWorkflowId(c.get('tenantId'), c.req.valid('param').eventId),
      );
      let rec: EventRecord | Omit<EventRecord, 'skipped'> | undefined;
      try {
        rec = await handle.result();
      } catch (err) {
        // A record that ended without a result (terminated) is no event; an unreachable
        // Temporal is thrown on (503), never a 404.
        if (err instanceof WorkflowFailedError) fail(404, 'event_not_found', 'No such event');
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        // Issue 14.11: the record is past the namespace retention (30 days); the event's
        // deliveries still carry its body (Dong Tien's stay open 90 days for replay).
        rec = await eventFromDeliveries(client, c.get('tenantId'), c.req.valid('param').eventId);
        if (!rec) fail(404, 'event_not_found', 'No such event');
      }
      const payload = (JSON.parse(rec.body) as { data: unknown }).data;
      // Read back from its deliveries, the event has no `skipped`: only the record knew.
      const { eventId, type, occurredAt, deliveries } = rec;
      const shown = 'skipped' in rec ? publicRecord(rec) : { eventId, type, occurredAt, deliveries };
      return c.json({ ...shown, payload }, 200);
    },
  );

  return app;
}

function publicRecord(r: EventRecord) {
  return {
    eventId: r.eventId,
    type: r.type,
    occurredAt: r.occurredAt,
    deliveries: r.deliveries,
    skipped: r.skipped,
  };
}

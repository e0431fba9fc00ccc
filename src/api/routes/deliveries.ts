import { createRoute, z } from '@hono/zod-openapi';
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../config.js';
import type { AttemptRecord, DeliveryState, DeliveryStatus } from '../../shared/delivery-types.js';
import { deliveryStateQuery } from '../../shared/messages.js';
import { DELIVERY_WORKFLOW } from '../../shared/names.js';
import {
  SA_ENDPOINT,
  SA_EVENT_ID,
  SA_EVENT_TYPE,
  SA_PRESET,
  SA_STATUS,
  SA_TENANT,
} from '../../shared/search-attributes.js';
import type { TenantEnv } from '../auth.js';
import { lit, type Directory } from '../directory.js';
import { fail } from '../problem.js';
import { problemResponse, router } from '../openapi.js';
import { deliveryEnvelope } from '../delivery-body.js';

export type RouterDeps = { client: Client; config: Config; directory: Directory };

// ---------------------------------------------------------------------------------------
// Shared by the deliveries, dead-letter and replay routers.
// ---------------------------------------------------------------------------------------

export const DELIVERY_ID = /^dlv_[A-Za-z0-9_-]+$/;
export const deliveryIdSchema = z.string().max(128).regex(DELIVERY_ID, 'a delivery id starting with dlv_');
export const deliveryParams = z.object({ id: deliveryIdSchema });
export const endpointIdSchema = z
  .string()
  .max(128)
  .regex(/^ep_[A-Za-z0-9]+$/, 'an endpoint id starting with ep_');

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = [
  'pending',
  'processing',
  'succeeded',
  'failed',
  'exhausted',
  'dead',
];

/** A delivery as visibility knows it: enough for list rows without querying the workflow. */
export interface DeliveryRef {
  id: string;
  endpointId: string;
  eventType: string;
  eventId: string;
  /** HeraldStatus as last indexed (visibility lags the workflow by a moment). */
  status: string;
  preset?: string;
  createdAt: string;
  startMs: number;
  /** Still open: dead-letter retry and replay can reach it. */
  open: boolean;
}

export function refOf(
  wf: Pick<WorkflowExecutionInfo, 'workflowId' | 'typedSearchAttributes' | 'startTime' | 'status'>,
): DeliveryRef {
  const sa = wf.typedSearchAttributes;
  return {
    id: wf.workflowId,
    endpointId: sa.get(SA_ENDPOINT) ?? '',
    eventType: sa.get(SA_EVENT_TYPE) ?? '',
    eventId: sa.get(SA_EVENT_ID) ?? '',
    status: sa.get(SA_STATUS) ?? 'pending',
    preset: sa.get(SA_PRESET),
    createdAt: wf.startTime.toISOString(),
    startMs: wf.startTime.getTime(),
    open: wf.status.name === 'RUNNING',
  };
}

export const rowOf = (r: DeliveryRef) => ({
  id: r.id,
  endpointId: r.endpointId,
  eventType: r.eventType,
  eventId: r.eventId,
  status: r.status,
  createdAt: r.createdAt,
});

/** The tenant's deliveries, as a visibility query; `extra` clauses are ANDed. */
export function deliveriesQuery(tenantId: string, ...extra: Array<string | undefined>): string {
  return [`WorkflowType = ${lit(DELIVERY_WORKFLOW)}`, `HeraldTenant = ${lit(tenantId)}`, ...extra]
    .filter((s): s is string => !!s)
    .join(' AND ');
}

export const statusIn = (statuses: readonly string[]) => `HeraldStatus IN (${statuses.map(lit).join(', ')})`;

/**
 * Deliveries of these presets only: how a list keeps to what the presets' recovery offers
 * (issue 14.6). An empty list matches nothing.
 */
export const presetIn = (presets: readonly string[]) =>
  presets.length ? `HeraldPreset IN (${presets.map(lit).join(', ')})` : `HeraldPreset = ''`;

/** Reads every match (up to `cap`), for callers that sort or group themselves. */
export async function listAll(client: Client, query: string, cap: number): Promise<DeliveryRef[]> {
  const out: DeliveryRef[] = [];
  for await (const wf of client.workflow.list({ query, pageSize: Math.min(1000, cap) })) {
    out.push(refOf(wf));
    if (out.length >= cap) break;
  }
  return out;
}

const newestFirst = (a: DeliveryRef, b: DeliveryRef) => b.startMs - a.startMs || (a.id < b.id ? 1 : -1);

/** Rows read per window before giving up on an exact order (a burst this size in minutes is extreme). */
const SCAN_CAP = 20_000;
const WINDOWS_MS = [10 * 60_000, 3_600_000, 86_400_000, 7 * 86_400_000, undefined];

/**
 * The newest `limit` matches by start time. Visibility has no ORDER BY on SQL stores (its
 * default order puts running workflows first), so the search looks back over growing
 * windows until one holds enough rows, then sorts those itself.
 */
export async function newestDeliveries(
  client: Client,
  query: string,
  limit: number,
  bounds: { since?: Date; until?: Date } = {},
): Promise<DeliveryRef[]> {
  const anchor = (bounds.until ?? new Date()).getTime();
  const sinceMs = bounds.since?.getTime();
  let clauses = query;
  if (bounds.until) clauses += ` AND StartTime <= ${lit(bounds.until.toISOString())}`;
  for (const w of WINDOWS_MS) {
    const lower = w === undefined ? sinceMs : Math.max(sinceMs ?? -Infinity, anchor - w);
    const last = w === undefined || lower === sinceMs;
    const q =
      lower === undefined ? clauses : `${clauses} AND StartTime >= ${lit(new Date(lower).toISOString())}`;
    const rows = await listAll(client, q, SCAN_CAP);
    if (rows.length >= limit || last) return rows.sort(newestFirst).slice(0, limit);
  }
  return [];
}

/** Runs `fn` over `items` with at most `n` in flight, keeping order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/**
 * The delivery if it is the caller's; another tenant's delivery and a missing one are the
 * same 404, so no id leaks whether it exists.
 */
export async function ownedDelivery(
  client: Client,
  tenantId: string,
  id: string,
): Promise<{ ref: DeliveryRef; description: WorkflowExecutionDescription }> {
  if (!DELIVERY_ID.test(id)) fail(404, 'delivery_not_found', 'No such delivery');
  let d: WorkflowExecutionDescription;
  try {
    d = await client.workflow.getHandle(id).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) fail(404, 'delivery_not_found', 'No such delivery');
    throw err;
  }
  if (d.type !== DELIVERY_WORKFLOW || d.typedSearchAttributes.get(SA_TENANT) !== tenantId)
    fail(404, 'delivery_not_found', 'No such delivery');
  return { ref: refOf(d), description: d };
}

export async function deliveryState(client: Client, id: string): Promise<DeliveryState | undefined> {
  try {
    return await client.workflow.getHandle(id).query(deliveryStateQuery);
  } catch {
    return undefined;
  }
}

/** The reason an update was refused inside the workflow (its validator's failure type). */
export function updateFailureType(err: unknown): string | undefined {
  if (!(err instanceof WorkflowUpdateFailedError)) return undefined;
  const cause = err.cause;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

const isAttempt = (a: AttemptRecord) => a.kind === 'attempt';
export const attemptCount = (s: DeliveryState) => s.attempts.filter(isAttempt).length;
/** The latest row that spent (or was refused) an attempt. */
export const latestAttempt = (s: DeliveryState) =>
  [...s.attempts].reverse().find((a) => a.kind === 'attempt' || a.kind === 'refused');
/** The error of the latest failed attempt, else the delivery's last code. */
export const lastError = (s: DeliveryState) => s.lastCode ?? latestAttempt(s)?.code;

/** R-RESP / R-LOG: the delivery with its attempt log, newest first. */
export function presentState(ref: DeliveryRef, s: DeliveryState, body?: string) {
  const latest = latestAttempt(s);
  return {
    id: s.deliveryId,
    endpointId: s.endpointId,
    eventId: s.eventId,
    eventType: ref.eventType,
    status: s.status,
    createdAt: ref.createdAt,
    round: s.round,
    attemptsInRound: s.attemptsInRound,
    attemptBudget: s.attemptBudget,
    attemptCount: attemptCount(s),
    responseCode: latest?.httpStatus ?? null,
    ...(s.nextAttemptAt ? { nextAttemptAt: s.nextAttemptAt } : {}),
    ...(lastError(s) ? { lastError: lastError(s) } : {}),
    ...(body !== undefined ? { body } : {}),
    attempts: [...s.attempts].reverse(),
  };
}

/**
 * The event body (exact bytes sent) from the delivery's own input (issue 14.11). Like the
 * state beside it, a read that fails leaves the body out rather than failing the log.
 */
export const deliveryBody = (client: Client, id: string): Promise<string | undefined> =>
  deliveryEnvelope(client, id).then(
    (e) => e?.body,
    () => undefined,
  );

// ---------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------

const isoDate = z.iso.datetime({ offset: true });
const listQuery = z.object({
  endpointId: endpointIdSchema.optional(),
  status: z.enum(DELIVERY_STATUSES as [DeliveryStatus, ...DeliveryStatus[]]).optional(),
  eventType: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_.:-]+$/)
    .optional(),
  since: isoDate.optional(),
  until: isoDate.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const rowSchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventType: z.string(),
    eventId: z.string(),
    status: z.string(),
    createdAt: z.string(),
  })
  .openapi('DeliveryRow');
const attemptSchema = z
  .object({
    kind: z.enum(['attempt', 'refused', 'deferral', 'lease_expired']),
    attempt: z.number(),
    round: z.number(),
    startedAt: z.string(),
    finishedAt: z.string(),
    latencyMs: z.number(),
    httpStatus: z.number().optional(),
    code: z.string().optional(),
    responseBody: z.string().optional(),
    // Issue 14.12: `base64` when the response bytes were not UTF-8; absent for text.
    responseBodyEncoding: z.enum(['base64']).optional(),
    // Issue 14.16: the body this attempt sent, when a transformation changed it (first 4 KiB).
    sent: z
      .object({
        body: z.string(),
        bytes: z.number(),
        truncated: z.literal(true).optional(),
        method: z.string().optional(),
      })
      .optional(),
    detail: z.string().optional(),
    replay: z.boolean().optional(),
    // Issue 14.1: a deferral row standing for this many identical deferrals in a row.
    repeats: z.number().optional(),
  })
  .openapi('Attempt');
export const deliverySchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.string(),
    createdAt: z.string(),
    round: z.number(),
    attemptsInRound: z.number(),
    attemptBudget: z.number(),
    attemptCount: z.number(),
    responseCode: z.number().nullable(),
    nextAttemptAt: z.string().optional(),
    lastError: z.string().optional(),
    body: z.string().optional(),
    attempts: z.array(attemptSchema),
  })
  .openapi('Delivery');

/** R-LOG, R-RESP, R-SMENGO-LOG: the delivery log. */
export function deliveriesRouter(deps: RouterDeps) {
  const app = router<TenantEnv>();
  const { client } = deps;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      summary:
        "The tenant's deliveries, newest first, filtered by endpoint, status, event type and start time",
      request: { query: listQuery },
      responses: {
        200: {
          description: 'Deliveries',
          content: { 'application/json': { schema: z.object({ data: z.array(rowSchema) }) } },
        },
        400: problemResponse('Invalid filter'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const q = c.req.valid('query');
      const since = q.since ? new Date(q.since) : undefined;
      const until = q.until ? new Date(q.until) : undefined;
      if (since && until && since > until) fail(400, 'invalid_window', '`since` is after `until`');
      const query = deliveriesQuery(
        tenantId,
        q.endpointId && `HeraldEndpoint = ${lit(q.endpointId)}`,
        q.status && `HeraldStatus = ${lit(q.status)}`,
        q.eventType && `HeraldEventType = ${lit(q.eventType)}`,
      );
      const refs = await newestDeliveries(client, query, q.limit, { since, until });
      return c.json({ data: refs.map(rowOf) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/recent',
      summary:
        'The 25 newest deliveries across all endpoints: time, event type, response code, attempts and body',
      responses: {
        200: {
          description: 'Recent deliveries',
          content: { 'application/json': { schema: z.object({ data: z.array(deliverySchema) }) } },
        },
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const refs = await newestDeliveries(client, deliveriesQuery(tenantId), 25);
      const rows = await mapLimit(refs, 25, async (ref) => {
        // Issue 14.11: each delivery's body from its own input, not from the event record.
        const [s, b] = await Promise.all([deliveryState(client, ref.id), deliveryBody(client, ref.id)]);
        return s ? presentState(ref, s, b) : undefined;
      });
      return c.json({ data: rows.filter((r) => r !== undefined) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      summary: 'One delivery with its event body and attempt log, newest first',
      request: { params: deliveryParams },
      responses: {
        200: { description: 'The delivery', content: { 'application/json': { schema: deliverySchema } } },
        404: problemResponse('No such delivery'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { ref } = await ownedDelivery(client, tenantId, c.req.valid('param').id);
      // Issue 14.11: the body from the delivery's own input, which lives as long as the
      // delivery (Dong Tien: 90 days), not from the event record (deleted after 30).
      const [s, body] = await Promise.all([deliveryState(client, ref.id), deliveryBody(client, ref.id)]);
      if (!s) fail(404, 'delivery_not_found', 'No such delivery', 'Its log is past the retention period');
      return c.json(presentState(ref, s, body), 200);
    },
  );

  return app;
}

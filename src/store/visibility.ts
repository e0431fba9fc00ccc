import { DELIVERY_WORKFLOW } from '../shared/names.js';

/**
 * The one place that knows Temporal's visibility syntax. Every value put into a query goes
 * through `literal`, so an id, an event type or a tenant id can never end a string early or
 * add a clause, whatever characters it holds.
 */

/** A visibility string literal: single-quoted, backslash and quote escaped, anything else as is. */
export function literal(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A search attribute key (or a built-in column such as `WorkflowType`). */
type Key = string | { name: string };
const nameOf = (k: Key) => (typeof k === 'string' ? k : k.name);

/** A clause that holds for no workflow: every workflow has an id, and none is empty. */
export const NOTHING = `WorkflowId = ''`;
export const RUNNING = `ExecutionStatus = 'Running'`;

export const eq = (key: Key, value: string) => `${nameOf(key)} = ${literal(value)}`;
/** `key IN (…)`; an empty list matches nothing (not everything). */
export const isIn = (key: Key, values: readonly string[]) =>
  values.length ? `${nameOf(key)} IN (${values.map(literal).join(', ')})` : NOTHING;
export const isNull = (key: Key) => `${nameOf(key)} IS NULL`;
export const ofType = (workflowType: string) => eq('WorkflowType', workflowType);
export const startedAtOrAfter = (d: Date) => `StartTime >= ${literal(d.toISOString())}`;
export const startedAtOrBefore = (d: Date) => `StartTime <= ${literal(d.toISOString())}`;
export const closedAtOrAfter = (d: Date) => `CloseTime >= ${literal(d.toISOString())}`;

/**
 * Issue 16: a delivery's creation, the key lists order by. A reopened delivery is a new run
 * with a new StartTime, so runs that close at their round end carry `HeraldCreatedAt`; runs
 * started before issue 16 lack it and were started when they were created.
 */
const CREATED_AT = 'HeraldCreatedAt';
export const createdAtOrAfter = (d: Date) =>
  `(${CREATED_AT} >= ${literal(d.toISOString())} OR (${CREATED_AT} IS NULL AND ${startedAtOrAfter(d)}))`;
export const createdAtOrBefore = (d: Date) =>
  `(${CREATED_AT} <= ${literal(d.toISOString())} OR (${CREATED_AT} IS NULL AND ${startedAtOrBefore(d)}))`;
/** Runs that close at their round end (issue 16): only they are reopened as a new run. */
export const CLOSES_AT_ROUND_END = `${CREATED_AT} IS NOT NULL`;
/**
 * Rows of runs that handed over to a next run (continue-as-new): the next run stands for the
 * delivery, so a list never shows one delivery twice.
 */
export const NOT_CONTINUED = `ExecutionStatus != 'ContinuedAsNew'`;

/** Clauses ANDed; `undefined`, `false` and '' (an unset filter) are left out. */
export function and(...clauses: Array<string | undefined | false>): string {
  return clauses.filter((c): c is string => !!c).join(' AND ');
}

/** Clauses ORed, in parentheses; no clause matches nothing. */
export function or(...clauses: string[]): string {
  if (clauses.length === 0) return NOTHING;
  if (clauses.length === 1) return clauses[0]!;
  const grouped = clauses.map((c) => (/ AND | OR /.test(c) ? `(${c})` : c));
  return `(${grouped.join(' OR ')})`;
}

const CLOSED_NOT_COMPLETED = isIn('ExecutionStatus', ['Terminated', 'TimedOut', 'Failed', 'Canceled']);
const NOT_ENDED = isIn('HeraldStatus', ['pending', 'processing']);

/**
 * Issue 16 (R-STATUS in the index): a delivery whose run closes at its round end carries
 * `HeraldStatus` at start and upserts it only for the endings lists filter on (exhausted,
 * dead, failed), never `processing` or `succeeded`. So a status as visibility shows it is
 * HeraldStatus where it is an ending, else the run's own status: running is `pending`
 * (runs started before issue 16 may still say `processing`), completed is `succeeded`, and
 * terminated or timed out is `failed`. This is that status as a clause, for every list.
 */
export function statusClause(status: string): string {
  switch (status) {
    case 'succeeded':
      return or(eq('HeraldStatus', 'succeeded'), and(`ExecutionStatus = 'Completed'`, NOT_ENDED));
    case 'failed':
      return or(eq('HeraldStatus', 'failed'), and(CLOSED_NOT_COMPLETED, NOT_ENDED));
    case 'pending':
    case 'processing':
      return and(eq('HeraldStatus', status), RUNNING);
    default:
      return eq('HeraldStatus', status);
  }
}

/** Deliveries still waiting to be sent (their own schedule runs): of one endpoint or one tenant. */
export function pendingDeliveries(of: { endpointId: string } | { tenantId: string }): string {
  return and(
    ofType(DELIVERY_WORKFLOW),
    'endpointId' in of ? eq('HeraldEndpoint', of.endpointId) : eq('HeraldTenant', of.tenantId),
    isIn('HeraldStatus', ['pending', 'processing']),
    RUNNING,
  );
}

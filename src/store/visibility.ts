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

/** Clauses ANDed; `undefined`, `false` and '' (an unset filter) are left out. */
export function and(...clauses: Array<string | undefined | false>): string {
  return clauses.filter((c): c is string => !!c).join(' AND ');
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

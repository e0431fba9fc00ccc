import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { setTimeout as delay } from 'node:timers/promises';
import { SearchAttributeType } from '@temporalio/common';
import { HERALD_SEARCH_ATTRIBUTES } from '../shared/search-attributes.js';

const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_DATETIME } =
  proto.temporal.api.enums.v1.IndexedValueType;

/** Each Herald search attribute with its indexed type, as the operator service takes them. */
export function heraldSearchAttributeTypes(): Record<string, proto.temporal.api.enums.v1.IndexedValueType> {
  return Object.fromEntries(
    HERALD_SEARCH_ATTRIBUTES.map((k) => [
      k.name,
      k.type === SearchAttributeType.DATETIME ? INDEXED_VALUE_TYPE_DATETIME : INDEXED_VALUE_TYPE_KEYWORD,
    ]),
  );
}

/**
 * Issue 16: how long Temporal keeps a closed workflow's history, the namespace retention.
 * Deliveries close when their round ends, so this is how long a finished delivery's log,
 * body and reopen (dead-letter retry, replay) last. 90 days: Dong Tien keeps bodies and
 * replays 90 days (SPEC §3 "log / body retention", R-DT-REPLAY), and the namespace has one
 * retention for every preset; the others' 30 days (Smengo's log, standard, Railhook) fit in it.
 */
export const NAMESPACE_RETENTION_DAYS = 90;

/**
 * `temporal server start-dev --search-attribute` registers attributes only when it creates
 * its database: on an existing `.data/temporal.sqlite` a newly added attribute (issue 14.14's
 * HeraldEndpointStatus) stays unknown, and every endpoint start would then be refused. So the
 * embedded server gets the missing ones added at run time, and Herald waits until queries
 * accept them (the server's attribute cache refreshes within a minute; see the dev server's
 * dynamic config) before its worker or API starts or upserts with them.
 *
 * Returns the names that were added (none on an up-to-date server).
 */
export async function registerMissingSearchAttributes(
  connection: Connection,
  namespace: string,
  opts: { timeoutMs?: number; log?: (msg: string) => void } = {},
): Promise<string[]> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(listed.customAttributes ?? {}));
  const missing = HERALD_SEARCH_ATTRIBUTES.map((k) => k.name).filter((n) => !known.has(n));
  if (missing.length === 0) return [];
  const types = heraldSearchAttributeTypes();
  opts.log?.(`registering search attributes the data folder predates: ${missing.join(', ')}`);
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((n) => [n, types[n]!])),
  });
  const probe = missing
    .map((n) =>
      types[n] === INDEXED_VALUE_TYPE_DATETIME ? `${n} = '2000-01-01T00:00:00Z'` : `${n} = 'probe'`,
    )
    .join(' AND ');
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  for (;;) {
    try {
      await connection.workflowService.listWorkflowExecutions({ namespace, query: probe, pageSize: 1 });
      return missing;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`search attributes ${missing.join(', ')} not usable: ${String(err)}`);
      await delay(1_000);
    }
  }
}

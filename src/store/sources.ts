import type { Client } from '@temporalio/client';
import { SOURCE_ID } from '../inbound/forwards.js';
import { HASHED_SOURCE_STATUS, type SourceCache } from '../inbound/source-cache.js';
import { SOURCE_WORKFLOW } from '../shared/names.js';
import { SA_STATUS, SA_TENANT } from '../shared/search-attributes.js';
import {
  DESTINATION_NOT_FOUND,
  SOURCE_DELETED,
  TOO_MANY_DESTINATIONS,
  addDestinationUpdate,
  deleteSourceUpdate,
  removeDestinationUpdate,
  sourceViewQuery,
  updateDestinationUpdate,
  updateSourceUpdate,
} from '../shared/source-messages.js';
import type {
  Destination,
  DestinationPatch,
  SourceInput,
  SourcePatch,
  SourceView,
} from '../shared/source-types.js';
import { boundedMap } from '../shared/bounded-map.js';
import { updateFailureType } from './deliveries.js';
import { unlessNotFound } from './not-found.js';
import { RecentlyCreated } from './recently-created.js';
import { RUNNING, and, eq, ofType } from './visibility.js';

/** One change to a source, as its workflow takes it. */
export type SourceChange =
  | { kind: 'patch'; patch: SourcePatch }
  | { kind: 'delete' }
  | { kind: 'addDestination'; destination: Destination }
  | { kind: 'updateDestination'; destinationId: string; patch: DestinationPatch }
  | { kind: 'removeDestination'; destinationId: string };

/** What the source workflow refused a change with. */
export type SourceChangeRefusal = 'destination_not_found' | 'source_deleted' | 'too_many_destinations';

export type SourceChangeResult = { ok: true; view: SourceView } | { ok: false; reason: SourceChangeRefusal };

/** What the source use cases (core/sources.ts) need of the database. */
export interface SourceStore {
  /** The tenant's live source; undefined for a missing, deleted or another tenant's one alike. */
  ownedSource(tenantId: string, id: string): Promise<SourceView | undefined>;
  /** The tenant's live sources, in no order. */
  sources(tenantId: string): Promise<SourceView[]>;
  /** How many live sources the tenant has, counting the ones this process just created. */
  sourceCount(tenantId: string): Promise<number>;
  /** Starts the source's workflow. */
  create(input: SourceInput): Promise<void>;
  /** Runs a change in the source's workflow; the ingest URL's cache forgets the source. */
  change(id: string, change: SourceChange): Promise<SourceChangeResult>;
}

const REFUSALS: Record<string, SourceChangeRefusal> = {
  [DESTINATION_NOT_FOUND]: 'destination_not_found',
  [SOURCE_DELETED]: 'source_deleted',
  [TOO_MANY_DESTINATIONS]: 'too_many_destinations',
};

const liveSources = (tenantId: string) => and(ofType(SOURCE_WORKFLOW), eq(SA_TENANT, tenantId), RUNNING);

export function temporalSourceStore(deps: {
  client: Client;
  taskQueue: string;
  sources: SourceCache;
}): SourceStore {
  const { client, taskQueue, sources } = deps;
  const created = new RecentlyCreated();
  const live = (tenantId: string, v: SourceView | undefined) =>
    v && v.tenantId === tenantId && !v.deleted ? v : undefined;

  const run = (id: string, c: SourceChange): Promise<SourceView> => {
    const h = client.workflow.getHandle(id);
    switch (c.kind) {
      case 'patch':
        return h.executeUpdate(updateSourceUpdate, { args: [c.patch] });
      case 'delete':
        return h.executeUpdate(deleteSourceUpdate);
      case 'addDestination':
        return h.executeUpdate(addDestinationUpdate, { args: [c.destination] });
      case 'updateDestination':
        return h.executeUpdate(updateDestinationUpdate, {
          args: [{ destinationId: c.destinationId, patch: c.patch }],
        });
      case 'removeDestination':
        return h.executeUpdate(removeDestinationUpdate, { args: [{ destinationId: c.destinationId }] });
    }
  };

  return {
    async ownedSource(tenantId, id) {
      if (!SOURCE_ID.test(id)) return undefined;
      // Only a source that does not exist is undefined; an unreachable Temporal throws (503).
      return live(tenantId, await unlessNotFound(client.workflow.getHandle(id).query(sourceViewQuery)));
    },
    async sources(tenantId) {
      const ids: string[] = [];
      for await (const wf of client.workflow.list({ query: liveSources(tenantId) })) ids.push(wf.workflowId);
      const views = await boundedMap(ids, 16, async (id) =>
        // A source deleted or closed between the listing and its query is left out.
        live(tenantId, await unlessNotFound(client.workflow.getHandle(id).query(sourceViewQuery))),
      );
      return views.filter((v): v is SourceView => v !== undefined);
    },
    async sourceCount(tenantId) {
      const ids = new Set(created.ids(tenantId));
      for await (const wf of client.workflow.list({ query: liveSources(tenantId) })) ids.add(wf.workflowId);
      return ids.size;
    },
    async create(input) {
      // Remembered once started: a start the server refused made no source. Creates of one
      // tenant run one at a time (startWithinCap), so none counts in between.
      await client.workflow.start(SOURCE_WORKFLOW, {
        workflowId: input.sourceId,
        taskQueue,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SA_TENANT, value: input.tenantId },
          // Marks a source whose workflow id is a public id (source-cache.ts).
          { key: SA_STATUS, value: HASHED_SOURCE_STATUS },
        ],
      });
      created.remember(input.tenantId, input.sourceId);
    },
    async change(id, c) {
      try {
        return { ok: true, view: await run(id, c) };
      } catch (err) {
        const reason = REFUSALS[updateFailureType(err) ?? ''];
        if (reason) return { ok: false, reason };
        throw err;
      } finally {
        sources.drop(id);
      }
    },
  };
}

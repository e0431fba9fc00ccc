import type { Client } from '@temporalio/client';
import { SOURCE_WORKFLOW } from '../shared/names.js';
import { SA_STATUS } from '../shared/search-attributes.js';
import { sourceSnapshotQuery } from '../shared/source-messages.js';
import type { SourceSnapshot } from '../shared/source-types.js';
import { SOURCE_ID } from './forwards.js';
import { publicSourceId } from './source-ids.js';
import { errorFields, log } from '../observability/log.js';
import { ExpiringSet } from '../shared/expiring-set.js';
import { TtlCache } from '../shared/ttl-cache.js';
import { RUNNING, and, isNull, ofType } from '../store/visibility.js';

/**
 * `HeraldStatus` of a source workflow whose id is a public id (issue 13.7). Sources created
 * before carry none: that is how the cache finds the few whose workflow id is their ingest id.
 */
export const HASHED_SOURCE_STATUS = 'active';

export interface SourceCacheOptions {
  /** How long a found source is reused (its changes reach other API processes this late). */
  ttlMs?: number;
  /**
   * How long an unknown ingest id is remembered (issue 13.6). Long is safe: an ingest id
   * is random, so nobody asks for one before its source exists, except by guessing.
   */
  negativeTtlMs?: number;
  /** Entries kept at most, found and unknown each; the oldest go first. */
  maxEntries?: number;
  /** How often the list of legacy sources is read again (a rolling deploy may still add some). */
  legacyRefreshMs?: number;
}

/**
 * The ingest route's view of sources, keyed by ingest id: one query per source per TTL
 * (about a second), so a sender's burst costs Temporal one query, not one per request.
 * Unknown ids are remembered apart and for longer (30 s), so made-up ids cost one query
 * each, however often they are sent, and cannot push found sources out. A failed read
 * (Temporal unreachable) is never remembered: it is a 503, not a 404. A change made
 * through the API drops the entry at once in this process.
 *
 * Where a source lives (issue 13.7): at its public id, derived from the ingest id; a legacy
 * source (created before, workflow id = ingest id) at its ingest id. Legacy sources are a
 * closed set, read by one visibility list per process and minute, so every lookup is still
 * one query. Either way a source answers only to its own ingest id: a public id posted to
 * `/in/` finds nothing.
 */
export class SourceCache {
  private readonly found: TtlCache<SourceSnapshot | undefined>;
  private readonly unknown: ExpiringSet;
  /** Public id -> ingest id, so a change addressed by public id drops the right entry. */
  private readonly ingestOf = new Map<string, string>();
  private legacy?: { at: number; ids?: Set<string>; loading?: Promise<Set<string>> };
  private readonly maxEntries: number;
  private readonly legacyRefreshMs: number;

  constructor(
    private readonly client: Client,
    options: SourceCacheOptions = {},
  ) {
    this.found = new TtlCache({ ttlMs: options.ttlMs ?? 1000, max: options.maxEntries ?? 10_000 });
    this.unknown = new ExpiringSet(options.negativeTtlMs ?? 30_000, options.maxEntries ?? 10_000);
    this.maxEntries = options.maxEntries ?? 10_000;
    this.legacyRefreshMs = options.legacyRefreshMs ?? 60_000;
  }

  /** The source whose ingest URL is `/in/{ingestId}`; undefined when there is none. */
  get(ingestId: string): Promise<SourceSnapshot | undefined> {
    if (!SOURCE_ID.test(ingestId)) return Promise.resolve(undefined);
    if (this.unknown.has(ingestId)) return Promise.resolve(undefined);
    const v = this.found.get(ingestId, () => this.load(ingestId));
    v.then(
      (s) => {
        if (s) {
          this.ingestOf.set(s.sourceId, ingestId);
          bound(this.ingestOf, this.maxEntries);
          return;
        }
        this.found.deleteIf(ingestId, v);
        this.unknown.add(ingestId);
      },
      () => undefined,
    );
    return v;
  }

  /**
   * A source by its public id (tenant routes: a dead-letter retry), read fresh, without
   * the ingest id check: the caller checks the tenant.
   */
  async byPublicId(sourceId: string): Promise<SourceSnapshot | undefined> {
    if (!SOURCE_ID.test(sourceId)) return undefined;
    const s = await this.query(sourceId);
    return s && !s.deleted ? s : undefined;
  }

  /** Forgets a source (by public id) after a change made through the API. */
  drop(sourceId: string) {
    const ingestId = this.ingestOf.get(sourceId) ?? sourceId;
    this.found.delete(ingestId);
    this.ingestOf.delete(sourceId);
  }

  private async load(ingestId: string): Promise<SourceSnapshot | undefined> {
    const legacy = await this.legacyIds();
    const s = await this.query(legacy.has(ingestId) ? ingestId : publicSourceId(ingestId));
    if (!s || s.deleted) return undefined;
    // A legacy snapshot has no ingestId: its workflow id is its ingest id.
    return (s.ingestId ?? s.sourceId) === ingestId ? s : undefined;
  }

  private async query(workflowId: string): Promise<SourceSnapshot | undefined> {
    try {
      return await this.client.workflow.getHandle(workflowId).query(sourceSnapshotQuery);
    } catch (err) {
      if ((err as { name?: string }).name === 'WorkflowNotFoundError') return undefined;
      throw err;
    }
  }

  /**
   * Running sources created before issue 13.7 (no `HeraldStatus`). Read once, then again
   * in the background at most once per `legacyRefreshMs`, serving the last list meanwhile.
   * Only a first read that fails fails the lookup (a 503): guessing "none" would answer
   * 404 to a legacy source's sender.
   */
  private legacyIds(): Promise<Set<string>> {
    const now = Date.now();
    const l = this.legacy;
    if (l?.ids && now - l.at < this.legacyRefreshMs) return Promise.resolve(l.ids);
    if (l?.loading) return l.ids ? Promise.resolve(l.ids) : l.loading;
    const loading = this.listLegacy();
    const next: { at: number; ids?: Set<string>; loading?: Promise<Set<string>> } = {
      at: l?.at ?? now,
      ids: l?.ids,
      loading,
    };
    this.legacy = next;
    loading.then(
      (ids) => {
        next.ids = ids;
        next.at = Date.now();
        next.loading = undefined;
      },
      (err) => {
        next.loading = undefined;
        // The last list (if any) stands; try again in a few seconds, not on every lookup.
        next.at = Date.now() - this.legacyRefreshMs + 5_000;
        if (next.ids) log.warn('could not refresh the legacy source list', errorFields(err));
      },
    );
    return next.ids ? Promise.resolve(next.ids) : loading;
  }

  private async listLegacy(): Promise<Set<string>> {
    const ids = new Set<string>();
    const query = and(ofType(SOURCE_WORKFLOW), RUNNING, isNull(SA_STATUS));
    for await (const wf of this.client.workflow.list({ query })) ids.add(wf.workflowId);
    return ids;
  }
}

/** Drops the oldest entries (a Map iterates in insertion order) beyond `max`. */
function bound(m: Map<string, unknown>, max: number) {
  while (m.size > max) m.delete(m.keys().next().value as string);
}

import { and, createdAtOrAfter, createdAtOrBefore } from './visibility.js';

/** A row a scan can order: its delivery's creation, then its id. */
export interface Started {
  id: string;
  /** The delivery's creation (issue 16: kept through a reopen, which starts a new run). */
  startMs: number;
}

/** Rows read per window before giving up on an exact order (a burst this size in minutes is extreme). */
export const SCAN_CAP = 20_000;
const WINDOWS_MS = [10 * 60_000, 3_600_000, 86_400_000, 7 * 86_400_000, undefined];

export const newestFirstOrder = (a: Started, b: Started) => b.startMs - a.startMs || (a.id < b.id ? 1 : -1);

/**
 * The newest `limit` matches by creation. Visibility has no ORDER BY on SQL stores (its
 * default order puts running workflows first), so the search looks back over growing
 * windows until one holds enough rows, then sorts those itself. `keep` drops rows that do
 * not stand for their delivery (an earlier run of a reopened one): it is asked about the
 * newest rows only, as many as are still missing, until the page is full.
 */
export async function newestFirst<R extends Started>(
  list: (query: string, cap: number) => Promise<R[]>,
  query: string,
  limit: number,
  bounds: { since?: Date; until?: Date } = {},
  keep: (rows: R[]) => Promise<R[]> = async (rows) => rows,
): Promise<R[]> {
  const anchor = (bounds.until ?? new Date()).getTime();
  const sinceMs = bounds.since?.getTime();
  const clauses = and(query, bounds.until && createdAtOrBefore(bounds.until));
  for (const w of WINDOWS_MS) {
    const lower = w === undefined ? sinceMs : Math.max(sinceMs ?? -Infinity, anchor - w);
    const last = w === undefined || lower === sinceMs;
    const q = and(clauses, lower !== undefined && createdAtOrAfter(new Date(lower)));
    const rows = await list(q, SCAN_CAP);
    if (rows.length < limit && !last) continue;
    rows.sort(newestFirstOrder);
    const out: R[] = [];
    for (let i = 0; out.length < limit && i < rows.length;) {
      const chunk = rows.slice(i, i + (limit - out.length));
      i += chunk.length;
      out.push(...(await keep(chunk)));
    }
    if (out.length >= limit || last) return out.slice(0, limit);
  }
  return [];
}

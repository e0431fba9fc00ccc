import { PolicyError } from './errors.js';

/** True when the status belongs to the set a list describes. */
export type StatusMatcher = (status: number) => boolean;

/**
 * Railhook's default list (R-RH-GRAMMAR), kept as text so the preset shows
 * exactly what a tenant would type.
 */
export const RAILHOOK_DEFAULT_RETRYABLE_STATUSES = '408,429,500-599';

const MIN_STATUS = 100;
const MAX_STATUS = 599;
// Long enough for any sensible list (every single status spelled out is ~2000
// chars); stops a hostile payload from making the API parse megabytes.
const MAX_LIST_LENGTH = 2048;

export class StatusGrammarError extends PolicyError {
  /** The offending term, as written (trimmed), so the API can name it. */
  readonly term: string;

  constructor(term: string, reason: string) {
    super('invalid_retryable_statuses', `invalid retryableStatuses term "${term}": ${reason}`);
    this.name = 'StatusGrammarError';
    this.term = term;
  }
}

interface Range {
  low: number;
  high: number;
}

function statusValue(digits: string, term: string): number {
  const n = Number(digits);
  if (n < MIN_STATUS || n > MAX_STATUS) {
    throw new StatusGrammarError(term, `status ${digits} is outside ${MIN_STATUS}-${MAX_STATUS}`);
  }
  return n;
}

function nonEmpty(low: number, high: number, term: string): Range {
  // Open ranges like `>599` or `<100` describe nothing; almost certainly a typo.
  if (low > high) throw new StatusGrammarError(term, 'range matches no status (low end above high end)');
  return { low, high };
}

function parseBody(body: string, term: string): Range {
  let m = /^(\d{3})$/.exec(body);
  if (m) {
    const n = statusValue(m[1]!, term);
    return { low: n, high: n };
  }
  m = /^(\d{3})-(\d{3})$/.exec(body);
  if (m) return nonEmpty(statusValue(m[1]!, term), statusValue(m[2]!, term), term);
  m = /^([1-5])xx$/i.exec(body);
  if (m) {
    const base = Number(m[1]) * 100;
    return { low: base, high: base + 99 };
  }
  m = /^(>=|>|<=|<)(\d{3})$/.exec(body);
  if (m) {
    const n = statusValue(m[2]!, term);
    switch (m[1]) {
      case '>=':
        return nonEmpty(n, MAX_STATUS, term);
      case '>':
        return nonEmpty(n + 1, MAX_STATUS, term);
      case '<=':
        return nonEmpty(MIN_STATUS, n, term);
      default:
        return nonEmpty(MIN_STATUS, n - 1, term);
    }
  }
  throw new StatusGrammarError(
    term,
    'expected a status (429), a range (500-599), a class (5xx), an open range (>=500, >500, <=408, <400), optionally prefixed with !',
  );
}

/**
 * Parses a comma list such as `5xx,!501` (R-RH-GRAMMAR) into a matcher.
 *
 * Whitespace is tolerated around terms but not inside them, so `! 501` or
 * `500 - 599` are rejected rather than guessed at. Exclusions win wherever they
 * appear, which is why inclusions and exclusions are collected separately and
 * only combined at the end. A list made only of exclusions is rejected: it
 * would retry nothing, and the author almost certainly meant "the default
 * minus these".
 */
export function parseRetryableStatuses(list: string): StatusMatcher {
  if (typeof list !== 'string' || list.trim() === '') {
    throw new StatusGrammarError('', 'the list is empty');
  }
  if (list.length > MAX_LIST_LENGTH) {
    throw new StatusGrammarError(
      `${list.slice(0, 32)}…`,
      `the list is longer than ${MAX_LIST_LENGTH} characters`,
    );
  }
  const include: Range[] = [];
  const exclude: Range[] = [];
  let firstExclusion: string | undefined;
  for (const raw of list.split(',')) {
    const term = raw.trim();
    if (term === '') throw new StatusGrammarError(term, 'empty term (doubled or trailing comma?)');
    if (term.startsWith('!')) {
      exclude.push(parseBody(term.slice(1), term));
      firstExclusion ??= term;
    } else {
      include.push(parseBody(term, term));
    }
  }
  if (include.length === 0) {
    throw new StatusGrammarError(
      firstExclusion ?? list.trim(),
      'the list has only exclusions, so no status would be retried',
    );
  }

  // A flat table makes the matcher O(1) and trivially deterministic.
  const table = new Uint8Array(MAX_STATUS - MIN_STATUS + 1);
  for (const r of include) table.fill(1, r.low - MIN_STATUS, r.high - MIN_STATUS + 1);
  for (const r of exclude) table.fill(0, r.low - MIN_STATUS, r.high - MIN_STATUS + 1);
  return (status: number) =>
    Number.isInteger(status) &&
    status >= MIN_STATUS &&
    status <= MAX_STATUS &&
    table[status - MIN_STATUS] === 1;
}

/** Returns the problem with a list, or undefined when it parses. */
export function validateRetryableStatuses(list: string): StatusGrammarError | undefined {
  try {
    parseRetryableStatuses(list);
    return undefined;
  } catch (err) {
    if (err instanceof StatusGrammarError) return err;
    throw err;
  }
}

// Policies are few but per-endpoint lists are not; the bound keeps a long-lived
// activity worker from growing without limit. Results depend only on the key,
// so the cache cannot make a workflow non-deterministic.
const CACHE_LIMIT = 256;
const cache = new Map<string, StatusMatcher>();

/** Memoised parseRetryableStatuses for hot paths (classification per attempt). */
export function statusMatcherFor(list: string): StatusMatcher {
  let m = cache.get(list);
  if (!m) {
    m = parseRetryableStatuses(list);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(list, m);
  }
  return m;
}

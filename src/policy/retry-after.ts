import type { DeliveryPolicy } from './types.js';
import { statusMatcherFor } from './status-grammar.js';

/**
 * Largest value parseRetryAfter returns: 2^31-1 ms (~24.8 days). Node's
 * setTimeout treats anything larger as 1 ms, so a clamp here keeps an absurd
 * header from turning into an immediate retry anywhere downstream. Every
 * preset's cap is far below it.
 */
export const MAX_RETRY_AFTER_MS = 2_147_483_647;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MON = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// RFC 9110 §5.6.7: IMF-fixdate, and the two obsolete forms recipients must accept.
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MON} (\\d{4}) ${TIME} GMT$`, 'i');
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MON}-(\\d{2}) ${TIME} GMT$`, 'i');
const ASCTIME = new RegExp(`^${DAY} ${MON} ([ \\d]\\d) ${TIME} (\\d{4})$`, 'i');

function utcMs(
  year: number,
  month: string,
  day: number,
  h: number,
  m: number,
  s: number,
): number | undefined {
  const mon = MONTHS.indexOf(month.toLowerCase());
  // 60 admits a leap second; Date.UTC rolls it into the next minute.
  if (mon < 0 || day < 1 || h > 23 || m > 59 || s > 60) return undefined;
  // Date.UTC silently rolls 31 Feb into March; a date that is not a real
  // calendar day is garbage, not a time.
  if (day > daysInMonth(year, mon)) return undefined;
  return Date.UTC(year, mon, day, h, m, s);
}

function daysInMonth(year: number, monthIndex: number): number {
  if (monthIndex === 1) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [3, 5, 8, 10].includes(monthIndex) ? 30 : 31;
}

function parseHttpDate(v: string, now: Date): number | undefined {
  let m = IMF_FIXDATE.exec(v);
  if (m) return utcMs(Number(m[3]), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = ASCTIME.exec(v);
  if (m) return utcMs(Number(m[6]), m[1]!, Number(m[2]!.trim()), Number(m[3]), Number(m[4]), Number(m[5]));
  m = RFC850.exec(v);
  if (m) {
    // RFC 9110: a two-digit year more than 50 years ahead belongs to the
    // previous century.
    const yy = Number(m[3]);
    const nowYear = now.getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + yy;
    if (year > nowYear + 50) year -= 100;
    return utcMs(year, m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  return undefined;
}

/**
 * Retry-After as milliseconds to wait, measured from `now` (the time the
 * response arrived; passed in so a workflow can use its deterministic clock).
 * A date in the past means "now" (0). Anything that is not one of RFC 9110's
 * forms (negative or fractional seconds, empty, a lenient date) is undefined:
 * a malformed header is as good as none.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) {
    // Number() of a long digit string is a huge float or Infinity, never a wrap.
    return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  }
  const nowMs = now.getTime();
  if (!Number.isFinite(nowMs)) return undefined;
  const at = parseHttpDate(v, now);
  if (at === undefined || !Number.isFinite(at)) return undefined;
  return Math.min(Math.max(at - nowMs, 0), MAX_RETRY_AFTER_MS);
}

/** Whether a Retry-After on a response with this status may move the next attempt. */
export function retryAfterApplies(p: DeliveryPolicy, status: number): boolean {
  if (p.retryAfter.ignore) return false;
  if (status >= 200 && status < 300) return false;
  return statusMatcherFor(p.retryAfter.statuses)(status);
}

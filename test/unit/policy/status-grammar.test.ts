import { describe, it, expect } from 'vitest';
import {
  parseRetryableStatuses,
  statusMatcherFor,
  StatusGrammarError,
  validateRetryableStatuses,
  type StatusMatcher,
} from '../../../src/policy/status-grammar.js';
import { PolicyError } from '../../../src/policy/errors.js';

const ALL = Array.from({ length: 500 }, (_, i) => 100 + i);
const matched = (m: StatusMatcher) => ALL.filter((s) => m(s));
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

function grammarError(list: string): StatusGrammarError {
  try {
    parseRetryableStatuses(list);
  } catch (err) {
    if (err instanceof StatusGrammarError) return err;
    throw err;
  }
  throw new Error(`expected "${list}" to be rejected`);
}

describe('R-RH-GRAMMAR seed examples', () => {
  it('R-RH-GRAMMAR: 408,429,500-599 (the default) retries exactly 408, 429 and 500-599', () => {
    expect(matched(parseRetryableStatuses('408,429,500-599'))).toEqual([408, 429, ...range(500, 599)]);
  });

  it('R-RH-GRAMMAR: 5xx,!501 retries every server error except 501', () => {
    expect(matched(parseRetryableStatuses('5xx,!501'))).toEqual([500, ...range(502, 599)]);
  });

  it('R-RH-GRAMMAR: >=500,408,429,409 adds 409 for a receiver that is catching up', () => {
    const m = parseRetryableStatuses('>=500,408,429,409');
    expect(matched(m)).toEqual([408, 409, 429, ...range(500, 599)]);
  });

  it('R-RH-GRAMMAR: 408,429 stops retrying 5xx', () => {
    const m = parseRetryableStatuses('408,429');
    expect(matched(m)).toEqual([408, 429]);
    expect(m(500)).toBe(false);
    expect(m(503)).toBe(false);
  });
});

describe('R-RH-GRAMMAR terms', () => {
  it('R-RH-GRAMMAR: an exact status matches only itself', () => {
    expect(matched(parseRetryableStatuses('429'))).toEqual([429]);
  });

  it('R-RH-GRAMMAR: a range is inclusive at both ends', () => {
    expect(matched(parseRetryableStatuses('500-503'))).toEqual([500, 501, 502, 503]);
    expect(matched(parseRetryableStatuses('404-404'))).toEqual([404]);
  });

  it.each([1, 2, 3, 4, 5])('R-RH-GRAMMAR: %dxx is shorthand for the whole class', (c) => {
    expect(matched(parseRetryableStatuses(`${c}xx`))).toEqual(range(c * 100, c * 100 + 99));
  });

  it('R-RH-GRAMMAR: the class shorthand is case-insensitive', () => {
    expect(matched(parseRetryableStatuses('5XX'))).toEqual(range(500, 599));
  });

  it('R-RH-GRAMMAR: open ranges >=, >, <=, < include or exclude their bound correctly', () => {
    expect(matched(parseRetryableStatuses('>=500'))).toEqual(range(500, 599));
    expect(matched(parseRetryableStatuses('>500'))).toEqual(range(501, 599));
    expect(matched(parseRetryableStatuses('<=408'))).toEqual(range(100, 408));
    expect(matched(parseRetryableStatuses('<400'))).toEqual(range(100, 399));
  });

  it('R-RH-GRAMMAR: exclusions win wherever they appear', () => {
    const a = matched(parseRetryableStatuses('5xx,!501'));
    const b = matched(parseRetryableStatuses('!501,5xx'));
    expect(b).toEqual(a);
    // Re-including an excluded status later in the list does not bring it back.
    expect(parseRetryableStatuses('4xx,!400-409,408')(408)).toBe(false);
    expect(parseRetryableStatuses('!>=550,5xx')(560)).toBe(false);
    expect(parseRetryableStatuses('!>=550,5xx')(549)).toBe(true);
  });

  it('R-RH-GRAMMAR: whitespace around terms is tolerated', () => {
    expect(matched(parseRetryableStatuses(' 408 , 429 ,\t5xx , !501 '))).toEqual([
      408,
      429,
      500,
      ...range(502, 599),
    ]);
  });

  it('R-RH-GRAMMAR: the matcher is false for non-integers and statuses outside 100-599', () => {
    const m = parseRetryableStatuses('1xx,2xx,3xx,4xx,5xx');
    expect(m(100)).toBe(true);
    expect(m(599)).toBe(true);
    for (const s of [99, 600, 999, 0, -500, 500.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(m(s)).toBe(false);
  });
});

describe('R-RH-GRAMMAR rejections name the bad term', () => {
  it.each([
    ['5xx,5xz', '5xz'],
    ['408,foo,429', 'foo'],
    ['600', '600'],
    ['099', '099'],
    ['99', '99'],
    ['1000', '1000'],
    ['599-500', '599-500'],
    ['500-600', '500-600'],
    ['>599', '>599'],
    ['<100', '<100'],
    ['6xx', '6xx'],
    ['! 501', '! 501'],
    ['500 - 599', '500 - 599'],
    ['5xx,!', '!'],
    ['4xx;5xx', '4xx;5xx'],
    ['=>500', '=>500'],
    ['5xx,!!501', '!!501'],
  ])('R-RH-GRAMMAR: "%s" is rejected naming "%s"', (list, term) => {
    const err = grammarError(list);
    expect(err).toBeInstanceOf(PolicyError);
    expect(err.code).toBe('invalid_retryable_statuses');
    expect(err.term).toBe(term);
    expect(err.message).toContain(`"${term}"`);
  });

  it.each([
    ['empty list', ''],
    ['blank list', '   '],
    ['doubled comma', '408,,429'],
    ['trailing comma', '408,'],
    ['leading comma', ',408'],
  ])('R-RH-GRAMMAR: %s is rejected', (_label, list) => {
    const err = grammarError(list);
    expect(err.code).toBe('invalid_retryable_statuses');
    expect(err.term).toBe('');
  });

  it('R-RH-GRAMMAR: a list made only of exclusions is rejected (it would retry nothing)', () => {
    const err = grammarError('!501,!503');
    expect(err.term).toBe('!501');
    expect(err.message).toMatch(/only exclusions/);
  });

  it('R-RH-GRAMMAR: an absurdly long list is rejected', () => {
    const err = grammarError(Array.from({ length: 600 }, () => '500').join(','));
    expect(err.code).toBe('invalid_retryable_statuses');
  });

  it('R-RH-GRAMMAR: validateRetryableStatuses returns the error instead of throwing', () => {
    expect(validateRetryableStatuses('5xx,!501')).toBeUndefined();
    expect(validateRetryableStatuses('5xx,nope')?.term).toBe('nope');
  });
});

describe('R-RH-GRAMMAR memoised matcher', () => {
  it('R-RH-GRAMMAR: statusMatcherFor returns one matcher per list with the parser’s semantics', () => {
    const a = statusMatcherFor('408,429,500-599');
    expect(statusMatcherFor('408,429,500-599')).toBe(a);
    expect(matched(a)).toEqual(matched(parseRetryableStatuses('408,429,500-599')));
    expect(() => statusMatcherFor('5xx,bad')).toThrow(StatusGrammarError);
  });
});

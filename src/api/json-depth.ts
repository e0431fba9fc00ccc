import type { MiddlewareHandler } from 'hono';
import { fail } from './problem.js';

/** Deeper JSON would overflow the stack of every recursive walk after it (JSON.stringify, codecs). */
export const MAX_EVENT_DEPTH = 64;

/** Nesting depth of JSON text, counted outside strings; no parsing, no recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) max = Math.max(max, ++depth);
    else if (ch === 125 || ch === 93) depth--;
  }
  return max;
}

/**
 * Refuses a POST body nested deeper than `maxDepth` before it is parsed: every recursive walk
 * after the parse (JSON.stringify, the codec, a transformation) would overflow the stack on it.
 * Hono keeps the text for the JSON validator, which parses it rather than reading again.
 */
export function maxJsonDepth(maxDepth: number, what: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'POST' && jsonDepth(await c.req.text()) > maxDepth)
      fail(400, 'payload_too_deep', `${what} may nest at most ${maxDepth} levels`);
    await next();
  };
}

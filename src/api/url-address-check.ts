import { isIP } from 'node:net';
import { defaultResolve } from '../activities/http-sender.js';
import type { Resolver } from '../activities/dns-resolve.js';
import { isForbiddenAddress, type Cidr } from '../policy/address.js';

/**
 * Issue 14.9: a preset that refuses a private address "when the URL is set" (Bird: "the
 * replacement URL must be publicly reachable HTTPS") must refuse a hostname that resolves
 * to one, not only an IP literal. The check runs with the sender's resolver and the
 * sender's classification (`isForbiddenAddress` with HERALD_ALLOW_ADDRESSES), so what is
 * refused here is what the sender would refuse. The send-time check stays: DNS can change
 * after the URL is saved.
 */

/** Save-time lookups answer an API request: bounded well under a client's patience. */
export const SAVE_TIME_LOOKUP_TIMEOUT_MS = 5_000;

export type AddressCheckResult =
  { ok: true } | { ok: false; code: 'private_address' | 'dns_failed'; message: string };

export interface AddressCheckOptions {
  allow: Cidr[];
  /** The sender's resolver by default; tests inject one that answers only loopback. */
  resolve?: Resolver;
  timeoutMs?: number;
}

/**
 * Resolves the URL's host (an IP literal is taken as it is) and refuses it when any
 * address it resolves to is forbidden. Any, not only the first the sender would pick: the
 * order of a name's addresses changes from one lookup to the next, so each of them may be
 * the one a later send goes to.
 *
 * A host that does not resolve (no such name, no address, or no answer in time) is refused
 * as `dns_failed`, the sender's code for the same thing: the seed asks for a URL that is
 * publicly reachable, and a name that resolves to nothing is not shown to be. Bird also
 * clears an endpoint's degradation on a URL change, which such a URL could not earn.
 */
export async function checkHostAddresses(url: URL, opts: AddressCheckOptions): Promise<AddressCheckResult> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const privateAddress = (): AddressCheckResult => ({
    ok: false,
    code: 'private_address',
    message: isIP(host)
      ? `${host} is not a public address`
      : `${host} resolves to an address that is not public`,
  });
  if (isIP(host)) return isForbiddenAddress(host, opts.allow) ? privateAddress() : { ok: true };

  const resolve = opts.resolve ?? defaultResolve;
  const timeoutMs = opts.timeoutMs ?? SAVE_TIME_LOOKUP_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  let found: Array<{ address: string; family: number }>;
  try {
    found = await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
  } catch {
    found = [];
  } finally {
    clearTimeout(timer);
  }
  if (found.length === 0)
    return {
      ok: false,
      code: 'dns_failed',
      message: `${host} did not resolve within ${timeoutMs / 1000} s; set the URL again once it does`,
    };
  return found.some((a) => isForbiddenAddress(a.address, opts.allow)) ? privateAddress() : { ok: true };
}

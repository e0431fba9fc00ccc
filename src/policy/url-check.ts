export type UrlErrorCode =
  | 'not_https'
  | 'port_not_allowed'
  | 'userinfo_not_allowed'
  | 'fragment_not_allowed'
  | 'invalid_url'
  | 'url_too_long'
  | 'url_too_short';

export type UrlCheckResult = { ok: true; url: URL } | { ok: false; code: UrlErrorCode; message: string };

export interface UrlCheckOptions {
  /**
   * Explicit ports accepted besides the scheme's default. Default [443, 8443]:
   * 8443 is the common alternative HTTPS port; anything else is more likely an
   * internal service than a webhook receiver.
   */
  allowedPorts?: number[];
  /**
   * Operator-trusted hosts (e.g. 127.0.0.1 for local receivers) that may use
   * plain http and any port. Matched against the URL's hostname, case- and
   * bracket-insensitively. This does not bypass R-SSRF: the resolved address
   * still has to pass the address allowlist.
   */
  allowInsecureHosts?: string[];
  /**
   * Ports of Herald's own listeners (API, codec, Temporal frontend, its HTTP API, metrics,
   * Web UI). Refused for every host, allowInsecureHosts included: a loopback receiver is a
   * development convenience, never a way for a tenant to make Herald POST to itself and
   * read the answer. Compared with the URL's effective port, the scheme default included.
   */
  reservedPorts?: readonly number[];
}

export const DEFAULT_ALLOWED_PORTS: readonly number[] = Object.freeze([443, 8443]);
export const MAX_URL_LENGTH = 2048;
/** Length of `https://a.b`, the shortest https URL with a dotted host; anything shorter is a typo. */
export const MIN_URL_LENGTH = 11;

const fail = (code: UrlErrorCode, message: string): UrlCheckResult => ({ ok: false, code, message });

const bareHost = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');

/**
 * R-URL shape check, run on create/update and again before each send.
 *
 * Stricter than WHATWG parsing where that parser would quietly repair the
 * input: whitespace or control characters, a missing `//authority`, an empty
 * `@` or `#` are all rejected instead of being normalised into a different
 * URL than the tenant typed.
 */
export function checkEndpointUrl(raw: string, opts: UrlCheckOptions = {}): UrlCheckResult {
  if (typeof raw !== 'string' || raw.length < MIN_URL_LENGTH) {
    return fail('url_too_short', `URL must be at least ${MIN_URL_LENGTH} characters`);
  }
  if (raw.length > MAX_URL_LENGTH)
    return fail('url_too_long', `URL must be at most ${MAX_URL_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(raw))
    return fail('invalid_url', 'URL must not contain whitespace or control characters');

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('invalid_url', 'URL cannot be parsed');
  }

  const insecureOk = (opts.allowInsecureHosts ?? []).map(bareHost).includes(bareHost(url.hostname));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && insecureOk)) {
    return fail('not_https', `URL scheme must be https, got ${url.protocol.replace(/:$/, '')}`);
  }

  // Backslashes count as slashes for http(s), so they end the authority too.
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\\]*)/i.exec(raw)?.[1];
  if (authority === undefined || authority === '')
    return fail('invalid_url', 'URL must be scheme://host/...');
  if (url.hostname === '' || /^\.*$/.test(url.hostname)) return fail('invalid_url', 'URL must name a host');
  if (authority.includes('@') || url.username !== '' || url.password !== '') {
    return fail('userinfo_not_allowed', 'URL must not contain credentials (user:password@)');
  }
  if (raw.includes('#')) return fail('fragment_not_allowed', 'URL must not contain a fragment (#...)');

  // url.port is '' for the scheme's default port (443 written out is normalised away).
  const effectivePort = url.port !== '' ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
  if (opts.reservedPorts?.includes(effectivePort)) {
    return fail('port_not_allowed', `port ${effectivePort} is reserved for Herald's own services`);
  }
  if (url.port !== '' && !insecureOk) {
    const allowed = opts.allowedPorts ?? DEFAULT_ALLOWED_PORTS;
    if (!allowed.includes(Number(url.port))) {
      return fail(
        'port_not_allowed',
        `port ${url.port} is not allowed; use ${allowed.join(', ')} or the default port`,
      );
    }
  }
  return { ok: true, url };
}

// R-ERRCODES: map whatever Node or undici threw to Herald's stable attempt codes.
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ABORT_ERR',
]);

function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 5; depth++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') codes.push(c);
    if ((cur as { name?: unknown }).name === 'AbortError' || (cur as { name?: unknown }).name === 'TimeoutError')
      codes.push('ABORT_ERR');
    cur = (cur as { cause?: unknown }).cause;
  }
  return codes;
}

export function errorCodeFor(err: unknown): string {
  const codes = codesOf(err);
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return 'timeout';
  // Prefer the OS-level code (ECONNRESET) over undici's wrapper (UND_ERR_SOCKET).
  const os = codes.find((c) => /^E[A-Z0-9_]+$/.test(c));
  if (os) return `network_${os}`;
  // The peer closed the socket before answering: Node's own http client calls this
  // "socket hang up" with ECONNRESET, and so do we.
  if (codes.includes('UND_ERR_SOCKET')) return 'network_ECONNRESET';
  const any = codes.find((c) => /^[A-Z0-9_]+$/.test(c));
  return `network_${any ?? 'UNKNOWN'}`;
}

import { PolicyError } from './errors.js';

/**
 * R-SSRF address classes. Everything except `public` is refused unless the
 * operator allowlists it.
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'invalid';

export interface ParsedAddress {
  family: 4 | 6;
  /** Network-order bytes: 4 for IPv4, 16 for IPv6. */
  bytes: number[];
}

export interface Cidr {
  family: 4 | 6;
  /** Network-order bytes with host bits cleared. */
  bytes: number[];
  prefix: number;
  /** The entry as written, for error messages and logs. */
  text: string;
}

// Hand-written instead of node:net so the module can run in the workflow
// sandbox. Deliberately strict: resolvers hand us canonical text, and lenient
// forms (leading zeros read as octal by some stacks, short forms like 127.1)
// are classic SSRF filter bypasses.
export function parseIPv4(s: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const bytes: number[] = [];
  for (const part of m.slice(1)) {
    if (part.length > 1 && part.startsWith('0')) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

function parseGroups(part: string): number[] | undefined {
  if (part === '') return [];
  const groups: number[] = [];
  for (const g of part.split(':')) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
    groups.push(parseInt(g, 16));
  }
  return groups;
}

/** 16 bytes, or undefined. Accepts `[...]` brackets and a `%zone` suffix (ignored). */
export function parseIPv6(input: string): number[] | undefined {
  let s = input;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) {
    if (!/^[A-Za-z0-9_.-]+$/.test(s.slice(zone + 1))) return undefined;
    s = s.slice(0, zone);
  }
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(':')) return undefined;

  // A trailing dotted quad stands for the last two groups.
  let tailV4: number[] = [];
  if (s.includes('.')) {
    const cut = s.lastIndexOf(':');
    const v4 = parseIPv4(s.slice(cut + 1));
    if (!v4) return undefined;
    tailV4 = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    s = s.slice(0, cut + 1);
    // Keep the `::` intact ("::1.2.3.4" -> "::"); otherwise drop the separator.
    if (!s.endsWith('::')) s = s.slice(0, -1);
  }

  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0]!);
  const tail = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const explicit = head.length + tail.length + tailV4.length;
  let groups: number[];
  if (halves.length === 2) {
    if (explicit > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...tail, ...tailV4];
  } else {
    if (explicit !== 8) return undefined;
    groups = [...head, ...tailV4];
  }
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** Parses an IPv4 or IPv6 literal (brackets and zone allowed for IPv6). */
export function parseIp(ip: string): ParsedAddress | undefined {
  if (typeof ip !== 'string') return undefined;
  const s = ip.trim();
  const v4 = parseIPv4(s);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = parseIPv6(s);
  return v6 ? { family: 6, bytes: v6 } : undefined;
}

function prefixMatches(addr: number[], net: number[], prefix: number): boolean {
  let bits = prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((addr[i]! & mask) !== (net[i]! & mask)) return false;
  }
  return true;
}

type Rule = [network: string, prefix: number, cls: AddressClass];

// First match wins, so narrower entries come before the blocks containing them.
const V4_RULES: Rule[] = [
  ['0.0.0.0', 32, 'unspecified'],
  ['0.0.0.0', 8, 'reserved'], // "this network"
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // TEST-NET-1
  ['192.88.99.0', 24, 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'], // TEST-NET-2
  ['203.0.113.0', 24, 'reserved'], // TEST-NET-3
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // future use, includes 255.255.255.255 broadcast
];

const V6_RULES: Rule[] = [
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64 (RFC 8215): translator-specific layout
  ['100::', 64, 'reserved'], // discard-only
  ['2001:db8::', 32, 'reserved'], // documentation
  ['2001::', 23, 'reserved'], // IETF protocol assignments, incl. Teredo 2001::/32
  ['3fff::', 20, 'reserved'], // documentation (RFC 9637)
  ['5f00::', 16, 'reserved'], // SRv6 SIDs
  ['fc00::', 7, 'private'], // unique local
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'private'], // deprecated site-local
  ['ff00::', 8, 'multicast'],
];

const compile = (rules: Rule[], parse: (s: string) => number[] | undefined) =>
  rules.map(([net, prefix, cls]) => ({ bytes: parse(net)!, prefix, cls }));
const V4_TABLE = compile(V4_RULES, parseIPv4);
const V6_TABLE = compile(V6_RULES, parseIPv6);

function classifyV4(bytes: number[]): AddressClass {
  for (const r of V4_TABLE) if (prefixMatches(bytes, r.bytes, r.prefix)) return r.cls;
  return 'public';
}

const allZero = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

/**
 * The IPv4 address a v6 address stands for, when some stack may deliver it to
 * that v4 host: IPv4-mapped (::ffff:a.b.c.d, also written ::ffff:7f00:1),
 * SIIT-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64
 * well-known prefix (64:ff9b::/96) and 6to4 (2002:aabb:ccdd::/48).
 */
export function embeddedIPv4(v6: number[]): number[] | undefined {
  const last4 = v6.slice(12, 16);
  if (allZero(v6, 0, 10) && v6[10] === 0xff && v6[11] === 0xff) return last4;
  if (allZero(v6, 0, 8) && v6[8] === 0xff && v6[9] === 0xff && v6[10] === 0 && v6[11] === 0) return last4;
  if (allZero(v6, 0, 12)) return last4;
  if (v6[0] === 0 && v6[1] === 0x64 && v6[2] === 0xff && v6[3] === 0x9b && allZero(v6, 4, 12)) return last4;
  if (v6[0] === 0x20 && v6[1] === 0x02) return v6.slice(2, 6);
  return undefined;
}

function classifyV6(bytes: number[]): AddressClass {
  if (allZero(bytes, 0, 16)) return 'unspecified';
  if (allZero(bytes, 0, 15) && bytes[15] === 1) return 'loopback';
  const v4 = embeddedIPv4(bytes);
  if (v4) return classifyV4(v4);
  for (const r of V6_TABLE) if (prefixMatches(bytes, r.bytes, r.prefix)) return r.cls;
  // Only 2000::/3 is allocated as global unicast; everything else is unassigned.
  return (bytes[0]! & 0xe0) === 0x20 ? 'public' : 'reserved';
}

export function classifyAddress(ip: string): AddressClass {
  const a = parseIp(ip);
  if (!a) return 'invalid';
  return a.family === 4 ? classifyV4(a.bytes) : classifyV6(a.bytes);
}

/** Parses operator allowlist entries like `127.0.0.1/32`, `::1/128`; a bare address means a single host. */
export function parseCidrList(list: string[]): Cidr[] {
  return list.map((entry) => {
    const text = typeof entry === 'string' ? entry.trim() : '';
    const bad = (why: string) => new PolicyError('invalid_cidr', `invalid CIDR "${String(entry)}": ${why}`);
    const [addr = '', prefixText, ...extra] = text.split('/');
    if (extra.length > 0) throw bad('more than one "/"');
    if (addr.includes('%') || addr.includes('[')) throw bad('zone ids and brackets are not allowed');
    const parsed = parseIp(addr);
    if (!parsed) throw bad('not an IPv4 or IPv6 address');
    const max = parsed.family === 4 ? 32 : 128;
    let prefix = max;
    if (prefixText !== undefined) {
      if (!/^(0|[1-9]\d{0,2})$/.test(prefixText) || Number(prefixText) > max)
        throw bad(`prefix must be 0-${max}`);
      prefix = Number(prefixText);
    }
    // Host bits are cleared rather than rejected: `127.0.0.1/8` plainly means 127/8.
    const bytes = parsed.bytes.map((b, i) => {
      const bits = Math.min(Math.max(prefix - i * 8, 0), 8);
      return b & ((0xff << (8 - bits)) & 0xff);
    });
    return { family: parsed.family, bytes, prefix, text };
  });
}

/** An IPv4-mapped IPv6 address also matches IPv4 entries: it is the same host. */
export function isAllowlisted(ip: string, allow: Cidr[]): boolean {
  const a = parseIp(ip);
  if (!a) return false;
  const forms: ParsedAddress[] = [a];
  if (a.family === 6 && allZero(a.bytes, 0, 10) && a.bytes[10] === 0xff && a.bytes[11] === 0xff) {
    forms.push({ family: 4, bytes: a.bytes.slice(12) });
  }
  return allow.some((c) =>
    forms.some((f) => f.family === c.family && prefixMatches(f.bytes, c.bytes, c.prefix)),
  );
}

/** R-SSRF: refuse unless the address is public or the operator opened its range. */
export function isForbiddenAddress(ip: string, allow: Cidr[]): boolean {
  return classifyAddress(ip) !== 'public' && !isAllowlisted(ip, allow);
}

import { Resolver as DnsResolver, lookup } from 'node:dns/promises';

/** A host's addresses, IPv4 first; what the sender pins its connection to. */
export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export interface DnsResolveOptions {
  /** DNS servers to ask (`host:port`); the system's (resolv.conf) when absent. */
  servers?: string[];
  /** How long one try waits for a server's answer. */
  timeoutMs?: number;
  tries?: number;
  /** Asked for a name DNS does not know; the system resolver (getaddrinfo) by default. */
  fallback?: Resolver;
}

const systemLookup: Resolver = (host) => lookup(host, { all: true, verbatim: true });

// RFC 6761: localhost names are the loopback, whatever DNS says. IPv4's alone, so an allow
// list of 127.0.0.1 (development) covers the name too.
const LOOPBACK = [{ address: '127.0.0.1', family: 4 }];
const NOT_IN_DNS = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * Resolves through DNS queries on the event loop (c-ares), not `dns.lookup`: lookup runs
 * getaddrinfo on Node's shared pool of four threads, and a lookup holds its thread until
 * the system resolver gives up, long after the attempt's deadline has abandoned it. A
 * tenant pointing endpoints at names whose nameserver never answers would then hold every
 * thread, and every other tenant's attempts would end `dns_failed` behind them. Here a
 * server that does not answer costs a timer and a socket, nothing shared.
 *
 * A name DNS does not know (NXDOMAIN, no address) may still be the machine's own (the hosts
 * file, a search domain): the system resolver is asked then, which answers those from local
 * files at once. A name whose server does not answer is not asked again that way.
 */
export function createDnsResolve(opts: DnsResolveOptions = {}): Resolver {
  return async (host) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return LOOPBACK.map((a) => ({ ...a }));
    const dns = new DnsResolver({ timeout: opts.timeoutMs ?? 2_000, tries: opts.tries ?? 2 });
    if (opts.servers) dns.setServers(opts.servers);
    const [v4, v6] = await Promise.allSettled([dns.resolve4(name), dns.resolve6(name)]);
    const found = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (found.length > 0) return found;
    const failures = [v4, v6].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    const other = failures.find((r) => !NOT_IN_DNS.has((r.reason as { code?: string }).code ?? ''));
    if (other) throw other.reason;
    return (opts.fallback ?? systemLookup)(name);
  };
}

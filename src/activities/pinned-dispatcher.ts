import { Agent, type Dispatcher } from 'undici';

/**
 * Keep-alive connection pools keyed by (host, resolved address). The address is pinned
 * into the pool's lookup so the socket goes to the address Herald checked (R-SSRF: no
 * second DNS lookup, no rebinding), while TLS still verifies the certificate for the host.
 */
export class PinnedDispatchers {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly maxAgents = 512) {}

  get(hostname: string, address: string, family: number): Dispatcher {
    const key = `${hostname}|${address}`;
    const found = this.agents.get(key);
    if (found) {
      // Map order doubles as LRU order.
      this.agents.delete(key);
      this.agents.set(key, found);
      return found;
    }
    const agent = new Agent({
      keepAliveTimeout: 30_000,
      connections: 64,
      connect: {
        lookup: (_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
          if (opts?.all) cb(null, [{ address, family }]);
          else cb(null, address, family);
        },
      } as Record<string, unknown>,
    });
    this.agents.set(key, agent);
    if (this.agents.size > this.maxAgents) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, Agent];
      this.agents.delete(oldestKey);
      void oldest.close();
    }
    return agent;
  }

  async close(): Promise<void> {
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.allSettled(all.map((a) => a.close()));
  }
}

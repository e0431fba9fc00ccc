import { Agent, type Dispatcher } from 'undici';
import { TIMEOUT_SECONDS_RANGE } from '../policy/schema.js';

/**
 * R-TIMEOUT (issue 14.13): the policy timeout covers the whole attempt, connect included.
 * The attempt's own deadline (http-sender) ends it; undici's connect timeout (10 s by
 * default) would cut the connect phase of a 30 s or 60 s policy short. So each pool's
 * connect timeout is the attempt timeout it serves (pools are keyed by it too): never
 * shorter than the attempt, and a connect left behind by an attempt that ended at its
 * deadline is dropped by that same time instead of lingering.
 */
export const CONNECT_TIMEOUT_MS = TIMEOUT_SECONDS_RANGE.max * 1000;

/**
 * Keep-alive connection pools keyed by (host, resolved address, connect timeout). The
 * address is pinned into the pool's lookup so the socket goes to the address Herald
 * checked (R-SSRF: no second DNS lookup, no rebinding), while TLS still verifies the
 * certificate for the host.
 */
export class PinnedDispatchers {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly maxAgents = 512) {}

  /** `connectTimeoutMs`: the attempt's timeout (issue 14.13); the longest a policy allows by default. */
  get(hostname: string, address: string, family: number, connectTimeoutMs = CONNECT_TIMEOUT_MS): Dispatcher {
    const key = `${hostname}|${address}|${connectTimeoutMs}`;
    const found = this.agents.get(key);
    if (found) {
      // Map order doubles as LRU order.
      this.agents.delete(key);
      this.agents.set(key, found);
      return found;
    }
    const agent = new Agent({
      keepAliveTimeout: 30_000,
      // No per-origin connection cap (issue 14.13): a request never waits in a queue for a
      // free socket, where its deadline would run before anything was sent. A busy origin
      // gets another connection instead; the worker's activity concurrency
      // (HERALD_WORKER_MAX_CONCURRENT_ACTIVITIES) bounds how many there can be.
      connections: null,
      connect: {
        timeout: connectTimeoutMs,
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

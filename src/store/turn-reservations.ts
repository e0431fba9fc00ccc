import type { Client } from '@temporalio/client';
import { reserveTurnsUpdate } from '../shared/endpoint-messages.js';

/** Tries of one reservation update (the endpoint may be continuing as new, or busy). */
const TRIES = 2;
/**
 * How long a publish waits for its reservation, all tries together: the update needs a worker
 * to run the endpoint workflow's task (over a second on a loaded machine, 17.2 beside other
 * files), and a publish must not hang on a worker outage: it starts its deliveries undelayed
 * instead, and each asks for its turn itself.
 */
const DEADLINE_MS = 5_000;

interface Asked {
  deliveryIds: string[];
  resolve(turns: Array<number | null> | undefined): void;
}

export interface TurnReserver {
  /**
   * Issue 17: the reserved send times (workflow clock, ms) of deliveries about to start to a
   * rate-limited endpoint, by delivery id. A delivery left out (the endpoint could not be
   * asked, or has no rate limit any more) starts at once and asks for its turn itself.
   */
  reserve(deliveries: ReadonlyArray<{ deliveryId: string; endpointId: string }>): Promise<Map<string, number>>;
}

/**
 * One reservation update in flight per endpoint from this process: the publishes that ask
 * meanwhile go together in the next one, in the order they asked. Temporal refuses more than
 * about ten updates in flight per workflow; a burst of concurrent publishes stays far from it.
 */
export function createTurnReserver(
  client: Client,
  sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): TurnReserver {
  const queues = new Map<string, Asked[]>();
  const busy = new Set<string>();

  const send = async (endpointId: string, deliveryIds: string[]) => {
    const handle = client.workflow.getHandle(endpointId);
    const deadline = Date.now() + DEADLINE_MS;
    for (let i = 0; i < TRIES && Date.now() < deadline; i++) {
      try {
        return await client.connection.withDeadline(deadline, () =>
          handle.executeUpdate(reserveTurnsUpdate, { args: [{ deliveryIds }] }),
        );
      } catch {
        if (i < TRIES - 1) await sleep(Math.round((50 << i) * (0.5 + Math.random())));
      }
    }
    return undefined;
  };

  const flush = async (endpointId: string) => {
    busy.add(endpointId);
    try {
      for (;;) {
        const batch = queues.get(endpointId);
        if (!batch?.length) return;
        queues.delete(endpointId);
        const turns = await send(endpointId, batch.flatMap((a) => a.deliveryIds));
        let at = 0;
        for (const a of batch) {
          a.resolve(turns?.slice(at, at + a.deliveryIds.length));
          at += a.deliveryIds.length;
        }
      }
    } finally {
      busy.delete(endpointId);
    }
  };

  const ask = (endpointId: string, deliveryIds: string[]) =>
    new Promise<Array<number | null> | undefined>((resolve) => {
      const q = queues.get(endpointId);
      if (q) q.push({ deliveryIds, resolve });
      else queues.set(endpointId, [{ deliveryIds, resolve }]);
      if (!busy.has(endpointId)) void flush(endpointId);
    });

  return {
    async reserve(deliveries) {
      const byEndpoint = new Map<string, string[]>();
      for (const d of deliveries) {
        const ids = byEndpoint.get(d.endpointId);
        if (ids) ids.push(d.deliveryId);
        else byEndpoint.set(d.endpointId, [d.deliveryId]);
      }
      const out = new Map<string, number>();
      await Promise.all(
        [...byEndpoint].map(async ([endpointId, ids]) => {
          const turns = await ask(endpointId, ids);
          ids.forEach((id, i) => {
            const t = turns?.[i];
            if (typeof t === 'number') out.set(id, t);
          });
        }),
      );
      return out;
    },
  };
}

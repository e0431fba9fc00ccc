import { Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { setTimeout as delay } from 'node:timers/promises';
import { newHeraldClient } from './herald-client.js';

/** Connects and waits until the namespace answers, so callers never race a starting server. */
export async function connectClient(
  address: string,
  namespace: string,
  dataConverter?: DataConverter,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const connection = await Connection.connect({ address });
      await connection.workflowService.describeNamespace({ namespace });
      return {
        connection,
        client: newHeraldClient({ connection, namespace, dataConverter }),
      };
    } catch (err) {
      lastErr = err;
      if (Date.now() > deadline)
        throw new Error(`Temporal at ${address} (namespace ${namespace}) not ready: ${String(lastErr)}`);
      await delay(300);
    }
  }
}

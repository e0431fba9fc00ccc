import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/api/app.js';
import { newTenant, type TenantSession } from './api.js';
import { startDevWorker } from './dev-worker.js';

export interface ListeningApp {
  worker: Awaited<ReturnType<typeof startDevWorker>>;
  app: ReturnType<typeof createApp>;
  tenant: TenantSession;
  port: number;
  stop(): Promise<void>;
}

/**
 * Herald's API on a real listening server over loopback, beside a dev worker, with one
 * tenant: for what only a Node request shows (streamed and chunked bodies, sockets).
 */
export async function listeningApp(tenantName: string): Promise<ListeningApp> {
  const worker = await startDevWorker();
  let server: ServerType | undefined;
  const stop = async () => {
    (server as Server | undefined)?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await worker.stop();
  };
  try {
    const app = createApp({ client: worker.client, config: worker.config });
    const tenant = await newTenant(app, tenantName);
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    server = s;
    await new Promise<void>((r) => (s.listening ? r() : s.once('listening', () => r())));
    return { worker, app, tenant, port: (s.address() as AddressInfo).port, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

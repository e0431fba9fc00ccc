import { serve } from '@hono/node-server';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { assertOwnPortsApart } from '../own-ports.js';
import { connectClient } from '../temporal/connect.js';
import { assertHistoryEncrypted, dataConverterFor } from '../temporal/data-converter.js';
import { createApp } from './app.js';
import { startCodecServer } from './codec-server.js';
import { tracedClient } from '../observability/tracing.js';
import { configureObservability, openObservabilityListener } from '../observability/process.js';
import { temporalReachable } from '../observability/readiness.js';
import { errorFields, log } from '../observability/log.js';

export function startApi(client: Client, config: Config, opts: { eagerStart?: boolean } = {}) {
  // Issue 20: with tracing on, every workflow a request starts joins the request's trace.
  const app = createApp({ client: tracedClient(client, config), config, eagerStart: opts.eagerStart });
  const server = serve({ fetch: app.fetch, hostname: config.HERALD_API_HOST, port: config.HERALD_API_PORT });
  return {
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function main() {
  const config = loadConfig();
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required to run the API on its own');
  assertOwnPortsApart(config, 'api');
  configureObservability(config);
  assertHistoryEncrypted(config, (m) => log.warn(m));
  // Issue 13.2: the Web UI's codec, on its own listener (never the API's port).
  if (startCodecServer(config))
    log.notice(
      `codec for the Web UI on http://${config.HERALD_CODEC_HOST}:${config.HERALD_CODEC_PORT} (token required)`,
    );
  const { client, connection } = await connectClient(
    config.TEMPORAL_ADDRESS,
    config.TEMPORAL_NAMESPACE,
    dataConverterFor(config),
  );
  startApi(client, config);
  // The API process has no worker: ready is Temporal answering.
  await openObservabilityListener(config, [temporalReachable(connection)]);
  log.notice(`API on http://${config.HERALD_API_HOST}:${config.HERALD_API_PORT}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    log.error(
      err instanceof ConfigError ? err.message : 'API failed',
      err instanceof ConfigError ? {} : errorFields(err),
    );
    process.exit(1);
  });
}

// `npm start`: the embedded default. A Temporal dev server persisted to SQLite (unless
// TEMPORAL_ADDRESS names a cluster), one worker and the API, in one process tree that
// stops cleanly on Ctrl-C.
import { msToTs } from '@temporalio/common/lib/time.js';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { join, resolve } from 'node:path';
import { ensureDevServer } from '../scripts/ensure-servers.mjs';
import { startApi } from './api/server.js';
import { ConfigError, loadConfig, withDevDefaults } from './config.js';
import { startDevServer, type DevServer } from './temporal/dev-server.js';
import { connectClient } from './temporal/connect.js';
import { dataConverterFor, ensureLocalCodecKey, ensureLocalSecret } from './temporal/data-converter.js';
import { randomBytes } from 'node:crypto';
import { createHeraldWorker } from './worker.js';

const log = (msg: string) => console.log(`[herald] ${msg}`);

async function main() {
  const env = withDevDefaults(process.env);
  const dataDir = env.HERALD_DATA_DIR ?? '.data';
  const embedded = !env.TEMPORAL_ADDRESS;
  if (!env.HERALD_CODEC_KEYS && embedded)
    env.HERALD_CODEC_KEYS = ensureLocalCodecKey(join(dataDir, 'codec.key'));
  const operatorKeyFile = join(dataDir, 'operator.key');
  if (!env.HERALD_OPERATOR_KEY && embedded)
    env.HERALD_OPERATOR_KEY = ensureLocalSecret(operatorKeyFile, () => randomBytes(24).toString('hex'));
  const config = loadConfig(env);
  Runtime.install({ logger: new DefaultLogger(config.HERALD_LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN') });
  let devServer: DevServer | undefined;
  let address = config.TEMPORAL_ADDRESS;
  if (!address) {
    const dbFile = resolve(join(config.HERALD_DATA_DIR, 'temporal.sqlite'));
    devServer = await startDevServer({
      cliPath: ensureDevServer(),
      dbFile,
      port: config.HERALD_TEMPORAL_PORT,
      uiPort: config.HERALD_TEMPORAL_UI_PORT,
      uiCodecEndpoint: config.HERALD_CODEC_ENDPOINT
        ? `http://${config.HERALD_API_HOST}:${config.HERALD_API_PORT}/codec`
        : undefined,
      namespace: config.TEMPORAL_NAMESPACE,
    });
    address = devServer.address;
    log(`Temporal dev server on ${address}, state in ${dbFile}`);
    log(`Temporal Web UI on ${devServer.uiUrl}`);
  } else {
    log(`using the Temporal cluster at ${address}`);
  }

  const { client, connection: clientConnection } = await connectClient(
    address,
    config.TEMPORAL_NAMESPACE,
    dataConverterFor(config),
  );
  if (devServer) {
    // R-LOG: deliveries and their attempts are kept 30 days; the dev server's default is 1 day.
    await clientConnection.workflowService.updateNamespace({
      namespace: config.TEMPORAL_NAMESPACE,
      config: { workflowExecutionRetentionTtl: msToTs('30 days') },
    });
  }
  const workerConnection = await NativeConnection.connect({ address });
  const { worker, close: closeActivities } = await createHeraldWorker({
    connection: workerConnection,
    config,
    client,
  });
  // The API publishes on the worker's own connection: deliveries then start eagerly, their
  // first workflow task handed straight to this worker (see BENCHMARKS.md).
  const apiClient = new Client({
    connection: workerConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: dataConverterFor(config),
  });
  const api = startApi(apiClient, config, { eagerStart: true });
  log(`API on http://${config.HERALD_API_HOST}:${config.HERALD_API_PORT} (docs at /docs)`);
  if (embedded && !process.env.HERALD_OPERATOR_KEY)
    log(`operator key for /v1/admin: export HERALD_OPERATOR_KEY=$(cat ${resolve(operatorKeyFile)})`);
  log(`worker polling task queue "${config.HERALD_TASK_QUEUE}"`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping API, worker and Temporal`);
    await api.close();
    // The SDK also reacts to SIGINT/SIGTERM itself; only ask once.
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await worker.run();
  await closeActivities();
  await workerConnection.close();
  await clientConnection.close();
  await devServer?.stop();
  log('stopped');
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});

// `npm start`: the embedded default. A Temporal dev server persisted to SQLite (unless
// TEMPORAL_ADDRESS names a cluster), one worker and the API, in one process tree that
// stops cleanly on Ctrl-C.
import { msToTs } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { join, resolve } from 'node:path';
import { findTemporalCli } from './temporal/cli-path.js';
import { startApi } from './api/server.js';
import { ConfigError, loadConfig, withDevDefaults } from './config.js';
import { startDevServer, type DevServer } from './temporal/dev-server.js';
import { connectClient } from './temporal/connect.js';
import {
  NAMESPACE_RETENTION_DAYS,
  registerMissingSearchAttributes,
} from './temporal/search-attribute-registration.js';
import {
  assertHistoryEncrypted,
  dataConverterFor,
  ensureLocalCodecKey,
  ensureLocalSecret,
} from './temporal/data-converter.js';
import { codecEndpointUrl, startCodecServer } from './api/codec-server.js';
import { randomBytes } from 'node:crypto';
import { createHeraldWorker } from './worker.js';
import { devAllowancesFor, describeDevAllowances } from './dev-allowances.js';
import { assertOwnPortsApart, heraldOwnPorts, temporalHttpPort, temporalMetricsPort } from './own-ports.js';

import { configureObservability, openObservabilityListener } from './observability/process.js';
import { installSdkRuntime } from './observability/sdk-runtime.js';
import { temporalReachable, workerPolling } from './observability/readiness.js';
import { errorFields, log as logger } from './observability/log.js';
import { workflowStackTracesNote } from './observability/workflow-stack-traces.js';
import { watchWorkerForStall } from './observability/stall-watchdog.js';
import { stopOnSdkWedge } from './observability/sdk-wedge.js';
import { newHeraldClient } from './temporal/herald-client.js';

const log = (msg: string) => logger.notice(msg);

async function main() {
  // Issue 13.3: the development allowances apply only with the embedded server and the API
  // on loopback; say which, so an operator never runs with one unaware.
  const allowances = devAllowancesFor(process.env);
  const env = withDevDefaults(process.env);
  const dataDir = env.HERALD_DATA_DIR ?? '.data';
  const embedded = !env.TEMPORAL_ADDRESS;
  if (!env.HERALD_CODEC_KEYS && embedded)
    env.HERALD_CODEC_KEYS = ensureLocalCodecKey(join(dataDir, 'codec.key'));
  const operatorKeyFile = join(dataDir, 'operator.key');
  if (!env.HERALD_OPERATOR_KEY && embedded)
    env.HERALD_OPERATOR_KEY = ensureLocalSecret(operatorKeyFile, () => randomBytes(24).toString('hex'));
  // Issue 18: signs portal sessions and links; made once, like the operator key.
  if (!env.HERALD_PORTAL_SECRET && embedded)
    env.HERALD_PORTAL_SECRET = ensureLocalSecret(join(dataDir, 'portal.key'), () =>
      randomBytes(32).toString('base64url'),
    );
  // Issue 13.2: the Web UI's codec decrypts for whoever holds this token; made once, like the keys.
  if (!env.HERALD_CODEC_TOKEN && embedded && env.HERALD_CODEC_ENDPOINT === 'true')
    env.HERALD_CODEC_TOKEN = ensureLocalSecret(join(dataDir, 'codec.token'), () =>
      randomBytes(32).toString('base64url'),
    );
  const config = loadConfig(env);
  assertOwnPortsApart(config, 'start');
  configureObservability(config);
  // Issue 13.1: on a cluster Herald did not start, no codec keys means no start.
  assertHistoryEncrypted(config, (m) => logger.warn(m));
  // Issue 13.2: the codec on its own listener, up before the UI that calls it; the
  // embedded UI's origins may call it.
  const uiOrigins = embedded
    ? [
        `http://127.0.0.1:${config.HERALD_TEMPORAL_UI_PORT}`,
        `http://localhost:${config.HERALD_TEMPORAL_UI_PORT}`,
      ]
    : [];
  const codecServer = startCodecServer(config, uiOrigins);
  if (codecServer)
    log(
      `codec for the Web UI on http://${config.HERALD_CODEC_HOST}:${config.HERALD_CODEC_PORT} (token required)`,
    );
  // Issue 20: the SDK logs through Herald's JSON logger and exports its metrics for /metrics.
  await installSdkRuntime(config);
  log(describeDevAllowances(allowances));
  log(`deliveries to Herald's own ports are refused: ${heraldOwnPorts(config).join(', ')}`);
  let devServer: DevServer | undefined;
  let address = config.TEMPORAL_ADDRESS;
  if (!address) {
    const dbFile = resolve(join(config.HERALD_DATA_DIR, 'temporal.sqlite'));
    devServer = await startDevServer({
      cliPath: findTemporalCli(),
      dbFile,
      logFile: resolve(join(config.HERALD_DATA_DIR, 'temporal.log')),
      port: config.HERALD_TEMPORAL_PORT,
      uiPort: config.HERALD_TEMPORAL_UI_PORT,
      // Pinned, so the URL check knows them (issue 13.3; the CLI would pick random ones).
      httpPort: temporalHttpPort(config),
      metricsPort: temporalMetricsPort(config),
      // The token rides in the URL: the dev server's UI can send no other credential.
      uiCodecEndpoint:
        config.HERALD_CODEC_ENDPOINT && config.HERALD_CODEC_TOKEN
          ? codecEndpointUrl(config, config.HERALD_CODEC_TOKEN)
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
    // R-LOG, issue 16: closed deliveries are kept the namespace retention (90 days, for
    // Dong Tien's bodies and replays); the dev server's default is 1 day.
    await clientConnection.workflowService.updateNamespace({
      namespace: config.TEMPORAL_NAMESPACE,
      config: { workflowExecutionRetentionTtl: msToTs(`${NAMESPACE_RETENTION_DAYS} days`) },
    });
    // Issue 14.14: a data folder from an older Herald lacks the newer search attributes.
    await registerMissingSearchAttributes(clientConnection, config.TEMPORAL_NAMESPACE, { log });
  }
  const workerConnection = await NativeConnection.connect({ address });
  const { worker, close: closeActivities } = await createHeraldWorker({
    connection: workerConnection,
    config,
    client,
  });
  // The API publishes on the worker's own connection: deliveries then start eagerly, their
  // first workflow task handed straight to this worker (see BENCHMARKS.md).
  const apiClient = newHeraldClient({
    connection: workerConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: dataConverterFor(config),
  });
  const api = startApi(apiClient, config, { eagerStart: true });
  log(`API on http://${config.HERALD_API_HOST}:${config.HERALD_API_PORT} (docs at /docs)`);
  log(
    config.HERALD_PORTAL_SECRET
      ? `tenant portal on http://${config.HERALD_API_HOST}:${config.HERALD_API_PORT}/portal`
      : 'tenant portal closed: set HERALD_PORTAL_SECRET to open /portal',
  );
  if (embedded && !process.env.HERALD_OPERATOR_KEY)
    log(`operator key for /v1/admin: export HERALD_OPERATOR_KEY=$(cat ${resolve(operatorKeyFile)})`);
  // Issue 20: one /metrics, /healthz, /readyz listener for the worker and the API.
  // A worker that stopped polling for good (an SDK fault) stops Herald, for a fresh start.
  const stall = watchWorkerForStall(config, worker, workerConnection, (reason) => void stop(reason));
  const wedge = stopOnSdkWedge((reason) => void stop(reason));
  const observability = await openObservabilityListener(
    config,
    [
      temporalReachable(workerConnection),
      workerPolling(worker),
      ...(stall ? [stall.readiness] : []),
      wedge.readiness,
    ],
    { sdkMetrics: true },
  );
  const stackTraces = workflowStackTracesNote(config);
  if (stackTraces) logger[stackTraces.level](stackTraces.message);
  log(`worker polling task queue "${worker.options.taskQueue}"`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping API, worker and Temporal`);
    await api.close();
    await codecServer?.close();
    await observability?.close();
    // The SDK also reacts to SIGINT/SIGTERM itself; only ask once.
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  // A worker whose server died polls nothing while looking alive (issue 14.3): Herald
  // without its embedded server stops, with a non-zero code, and says where the log is.
  void devServer?.exited.then((code) => {
    if (stopping) return;
    process.exitCode = 1;
    log(`the Temporal dev server exited (code ${code}); stopping Herald. Its log: ${devServer?.logFile}`);
    void stop('Temporal exited');
    // Closing connections to a server that is gone can wait on retries; do not hang on them.
    setTimeout(() => process.exit(1), 15_000).unref();
  });
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await worker.run();
  stall?.stop();
  wedge.stop();
  await closeActivities();
  await workerConnection.close();
  await clientConnection.close();
  await devServer?.stop();
  log('stopped');
}

main().catch((err) => {
  logger.error(
    err instanceof ConfigError ? err.message : 'Herald failed',
    err instanceof ConfigError ? {} : errorFields(err),
  );
  process.exit(1);
});

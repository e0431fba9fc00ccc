import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities, type ActivityDeps } from './activities/index.js';
import { createFlowGate } from './activities/flow-gate.js';
import { PinnedDispatchers } from './activities/pinned-dispatcher.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { assertOwnPortsApart } from './own-ports.js';
import { settingsFrom } from './settings.js';
import { assertHistoryEncrypted, dataConverterFor } from './temporal/data-converter.js';
import { connectClient } from './temporal/connect.js';
import { createHttpSender } from './activities/http-sender.js';
import { createSmtpMailer } from './notify/mailer.js';
import { createNotifier, createWebhookSenderFromHttpSender } from './notify/notifier.js';
import { parseCidrList } from './policy/address.js';
import { heraldOwnPorts } from './own-ports.js';
import { assertPresetsFit } from './deliveries/policy-resolver.js';
import { TransformSandbox, sandboxOptionsFrom } from './transform/sandbox.js';
import { metricsSinks } from './observability/worker-sinks.js';
import type { HeraldMetrics } from './observability/metrics.js';
import { workerTracingPlugins } from './observability/tracing.js';
import { installSdkRuntime } from './observability/sdk-runtime.js';
import { configureObservability, openObservabilityListener } from './observability/process.js';
import { temporalReachable, workerPolling } from './observability/readiness.js';
import { errorFields, log } from './observability/log.js';
import { watchWorkerForStall } from './observability/stall-watchdog.js';
import { stopOnSdkWedge } from './observability/sdk-wedge.js';
import { workflowStackTracesNote } from './observability/workflow-stack-traces.js';
import { inlineSlotsFor } from './activities/inline-slots.js';
import { SendShare, shareLimit } from './policy/flow-share.js';
import {
  WORKFLOWS_PATH,
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOW_PRELOAD_MODULES,
  prebuiltBundle,
} from './workflow-bundle.js';

export { WORKFLOWS_PATH, WORKFLOW_INTERCEPTOR_MODULES, WORKFLOW_PRELOAD_MODULES };

export interface HeraldWorkerOptions {
  connection: NativeConnection;
  config: Config;
  /** For activities that read and signal other workflows (endpoints, deliveries). */
  client?: Client;
  /** Override any activity dependency (tests hand in a fixed clock or resolver). */
  deps?: Partial<ActivityDeps>;
  /** Prebuilt bundle, so test suites bundle the workflows once; else HERALD_WORKFLOW_BUNDLE's. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  workerOptions?: Partial<WorkerOptions>;
  /** Where the workflows' metrics go; the process's registry by default. */
  metrics?: HeraldMetrics;
}

export async function createHeraldWorker(opts: HeraldWorkerOptions) {
  const { config } = opts;
  assertPresetsFit(config);
  const workflowBundle = opts.workflowBundle ?? prebuiltBundle(config.HERALD_WORKFLOW_BUNDLE);
  const dispatchers = new PinnedDispatchers();
  const httpDeps = {
    dispatchers,
    allowAddresses: parseCidrList(config.HERALD_ALLOW_ADDRESSES),
    allowHttpHosts: config.HERALD_ALLOW_HTTP_HOSTS,
    reservedPorts: heraldOwnPorts(config),
    now: () => new Date(),
  };
  const mailer = config.HERALD_SMTP_HOST
    ? createSmtpMailer({
        host: config.HERALD_SMTP_HOST,
        port: config.HERALD_SMTP_PORT,
        secure: config.HERALD_SMTP_SECURE,
        from: config.HERALD_SMTP_FROM,
        auth:
          config.HERALD_SMTP_USER && config.HERALD_SMTP_PASS
            ? { user: config.HERALD_SMTP_USER, pass: config.HERALD_SMTP_PASS }
            : undefined,
      })
    : undefined;
  const notifier = createNotifier({
    mailer,
    sendWebhook: createWebhookSenderFromHttpSender(createHttpSender(httpDeps)),
    now: httpDeps.now,
    metrics: opts.metrics,
  });
  // R-RH-TRANSFORM: evaluator processes start on first use and end with the worker.
  const transforms = new TransformSandbox(sandboxOptionsFrom(config), opts.metrics);
  const inlineSlots = inlineSlotsFor(
    config.HERALD_ENDPOINT_MAX_SHARE,
    config.HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
    config.HERALD_WORKER_MAX_INLINE_ATTEMPTS,
    config.HERALD_WORKER_INLINE_WAIT_MS,
  );
  const activities = createActivities({
    ...httpDeps,
    client: opts.client,
    notifier,
    transformer: transforms,
    // Issue 17: a slow endpoint cannot take every send slot of this worker.
    sendShare: new SendShare(
      shareLimit(config.HERALD_ENDPOINT_MAX_SHARE, config.HERALD_WORKER_MAX_CONCURRENT_ACTIVITIES),
    ),
    // Issue 16: inline first attempts hold workflow-task slots: a slow endpoint cannot take them all.
    inlineSlots,
    // Issue 17: rate limits and maxInFlight, granted by the endpoint workflow (across workers).
    flowGate: opts.client ? createFlowGate(opts.client) : undefined,
    ...opts.deps,
  });
  const worker = await Worker.create({
    connection: opts.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: settingsFrom(config).taskQueue,
    ...(workflowBundle
      ? { workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: WORKFLOW_PRELOAD_MODULES } }),
    activities,
    dataConverter: dataConverterFor(config),
    maxCachedWorkflows: config.HERALD_WORKER_MAX_CACHED_WORKFLOWS,
    maxConcurrentWorkflowTaskExecutions: config.HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
    // Sends wait on receivers, not on this CPU: many can be in flight at once.
    maxConcurrentActivityTaskExecutions: config.HERALD_WORKER_MAX_CONCURRENT_ACTIVITIES,
    // Issue 16: one local activity per inline first attempt; the inline slots and their
    // waiters are fewer than the workflow-task slots, so a slot per workflow-task slot means
    // no inline attempt waits for a local-activity slot while holding its task.
    maxConcurrentLocalActivityExecutions: config.HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
    // Issue 20: with the metrics listener off nobody reads the workflows' metrics, so they are
    // not recorded either (the A/B of BENCHMARKS.md). A prebuilt bundle decides for itself.
    ...(workflowBundle || !config.HERALD_METRICS_PORT
      ? {}
      : { interceptors: { workflowModules: WORKFLOW_INTERCEPTOR_MODULES } }),
    ...(workflowBundle || config.HERALD_METRICS_PORT ? { sinks: metricsSinks(opts.metrics) } : {}),
    // Issue 20: traces only with OTEL_EXPORTER_OTLP_ENDPOINT set.
    plugins: workerTracingPlugins(),
    ...opts.workerOptions,
  });
  return {
    worker,
    close: async () => {
      mailer?.close();
      await transforms.close();
      await dispatchers.close();
    },
  };
}

async function main() {
  const config = loadConfig();
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required to run the worker on its own');
  assertOwnPortsApart(config, 'worker');
  configureObservability(config);
  assertHistoryEncrypted(config, (m) => log.warn(m));
  // Before any NativeConnection: the SDK's logs and metrics are configured at install.
  await installSdkRuntime(config);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const { client } = await connectClient(
    config.TEMPORAL_ADDRESS,
    config.TEMPORAL_NAMESPACE,
    dataConverterFor(config),
  );
  const { worker, close } = await createHeraldWorker({ connection, config, client });
  const shutdown = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  const stall = watchWorkerForStall(config, worker, connection, shutdown);
  const wedge = stopOnSdkWedge(shutdown);
  const listener = await openObservabilityListener(
    config,
    [temporalReachable(connection), workerPolling(worker), ...(stall ? [stall.readiness] : []), wedge.readiness],
    {
      sdkMetrics: true,
    },
  );
  const stackTraces = workflowStackTracesNote(config);
  if (stackTraces) log[stackTraces.level](stackTraces.message);
  log.notice(`worker polling task queue ${worker.options.taskQueue}`);
  await worker.run();
  stall?.stop();
  wedge.stop();
  await listener?.close();
  await close();
  await connection.close();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    log.error(
      err instanceof ConfigError ? err.message : 'worker failed',
      err instanceof ConfigError ? {} : errorFields(err),
    );
    process.exit(1);
  });
}

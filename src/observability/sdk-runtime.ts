// Issue 20: the Temporal SDK's Runtime, installed once per process before any
// NativeConnection: its logger writes through Herald's JSON logger, and its Prometheus
// exporter (task slots, poll latency, schedule-to-start, sticky cache) listens on loopback
// for /metrics to append (src/observability/server.ts).
import type { LogLevel as SdkLogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Config } from '../config.js';
import { sdkMetricsPort } from '../own-ports.js';
import { portFree } from '../port-free.js';
import { errorFields, write, type LogFields, type LogLevel } from './log.js';
import { noteSdkError } from './sdk-wedge.js';

const LEVELS: Record<SdkLogLevel, LogLevel> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};
/** The SDK's metadata Herald logs: ids and names, never arguments or results. */
const KEPT = [
  'workflowId',
  'runId',
  'workflowType',
  'activityType',
  'activityId',
  'taskQueue',
  'namespace',
  'sdkComponent',
  'attempt',
  'durationMs',
  'state',
];

export function sdkLogger(): SdkLogger {
  const at = (level: SdkLogLevel) => (message: string, meta?: LogMetadata) => log(level, message, meta);
  const log = (level: SdkLogLevel, message: string, meta?: LogMetadata) => {
    const fields: LogFields = {};
    for (const k of KEPT) if (meta?.[k] !== undefined) fields[k] = meta[k];
    if (meta?.error !== undefined) Object.assign(fields, errorFields(meta.error));
    if (meta?.failure !== undefined)
      fields.failure = typeof meta.failure === 'string' ? meta.failure : 'failure';
    write(LEVELS[level] ?? 'info', message, fields);
    if (level === 'ERROR') noteSdkError(message);
  };
  return {
    log,
    trace: at('TRACE'),
    debug: at('DEBUG'),
    info: at('INFO'),
    warn: at('WARN'),
    error: at('ERROR'),
  };
}

/** Where the SDK's exporter listens, when it does. */
export function sdkMetricsUrl(config: Config): string | undefined {
  const port = sdkMetricsPort(config);
  return port ? `http://127.0.0.1:${port}/metrics` : undefined;
}

/** The SDK exporter's text; empty (not failed) when the exporter is down or slow. */
export function readSdkMetrics(url: string): Promise<string> {
  return fetch(url, { signal: AbortSignal.timeout(2_000) })
    .then((r) => (r.ok ? r.text() : ''))
    .catch(() => '');
}

let installed = false;

/** Runtime.install, once: a second call (tests, `npm start` calling the worker's setup) is a no-op. */
export async function installSdkRuntime(config: Config) {
  if (installed) return;
  installed = true;
  let port = sdkMetricsPort(config);
  // The SDK cannot start its exporter on a taken port, and that must not stop deliveries.
  if (port && !(await portFree(port))) {
    write('error', `the SDK metrics port ${port} is in use: SDK metrics are off in this process`);
    port = undefined;
  }
  Runtime.install({
    logger: sdkLogger(),
    telemetryOptions: {
      logging: {
        forward: {},
        filter: { core: config.HERALD_LOG_LEVEL === 'debug' ? 'INFO' : 'WARN', other: 'ERROR' },
      },
      ...(port
        ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, useSecondsForDurations: true } } }
        : {}),
    },
  });
}

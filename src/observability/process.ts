// Issue 20: what each Herald process (worker, API, `npm start`) sets up first and opens last.
import type { Config } from '../config.js';
import { configureLogging, log } from './log.js';
import { configureMetrics } from './metrics.js';
import { sdkMetricsUrl } from './sdk-runtime.js';
import { startObservabilityServer, type ObservabilityServer, type ReadinessCheck } from './server.js';

/** Before anything logs or counts: the level and the opt-in labels come from the config. */
export function configureObservability(config: Config) {
  configureLogging({ level: config.HERALD_LOG_LEVEL });
  configureMetrics(config);
}

/** The /metrics, /healthz, /readyz listener; none with HERALD_METRICS_PORT=0. */
export async function openObservabilityListener(
  config: Config,
  checks: ReadinessCheck[],
  opts: { sdkMetrics?: boolean } = {},
): Promise<ObservabilityServer | undefined> {
  if (!config.HERALD_METRICS_PORT) return undefined;
  const server = await startObservabilityServer({
    host: config.HERALD_METRICS_HOST,
    port: config.HERALD_METRICS_PORT,
    checks,
    sdkMetricsUrl: opts.sdkMetrics ? sdkMetricsUrl(config) : undefined,
  });
  log.info(`metrics on http://${config.HERALD_METRICS_HOST}:${server.port}/metrics (also /healthz, /readyz)`);
  return server;
}

// Issue 20: what each Herald process (worker, API, `npm start`) sets up first and opens last.
import type { Config } from '../config.js';
import { configureLogging, errorFields, log } from './log.js';
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
  let server: ObservabilityServer;
  try {
    server = await startObservabilityServer({
      host: config.HERALD_METRICS_HOST,
      port: config.HERALD_METRICS_PORT,
      checks,
      sdkMetricsUrl: opts.sdkMetrics ? sdkMetricsUrl(config) : undefined,
    });
  } catch (err) {
    // A taken port costs the metrics, not the deliveries: said loudly, then carried on.
    log.error(
      `metrics listener could not open on ${config.HERALD_METRICS_HOST}:${config.HERALD_METRICS_PORT}: /metrics, /healthz and /readyz are off in this process`,
      errorFields(err),
    );
    return undefined;
  }
  log.notice(
    `metrics on http://${config.HERALD_METRICS_HOST}:${server.port}/metrics (also /healthz, /readyz)`,
  );
  return server;
}

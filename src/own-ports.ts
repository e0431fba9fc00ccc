// Issue 13.3: the ports Herald's own processes listen on. A delivery to any of them would
// make Herald POST to itself (its API, its codec, the Temporal frontend and HTTP API, the
// Web UI, metrics) and hand the tenant 512 bytes of the answer, so the URL check refuses
// them for every host, loopback receivers included, at save time and again at send time.
import { ConfigError, type Config } from './config.js';
import type { UrlCheckOptions } from './policy/url-check.js';

/** The embedded dev server's HTTP API port: pinned, since the CLI would pick a random one. */
export function temporalHttpPort(config: Config): number {
  return config.HERALD_TEMPORAL_HTTP_PORT ?? config.HERALD_TEMPORAL_PORT + 10;
}

/** The embedded dev server's /metrics port: pinned for the same reason. */
export function temporalMetricsPort(config: Config): number {
  return config.HERALD_TEMPORAL_METRICS_PORT ?? config.HERALD_TEMPORAL_PORT + 11;
}

/** Issue 20: the SDK's Prometheus exporter, on loopback; off with the metrics listener. */
export function sdkMetricsPort(config: Config): number | undefined {
  if (!config.HERALD_METRICS_PORT) return undefined;
  return config.HERALD_SDK_METRICS_PORT ?? config.HERALD_METRICS_PORT + 1;
}

/** The port of `host:port`, `[v6]:port` or a URL; undefined when it names none. */
function portOf(address: string): number | undefined {
  const m = /:(\d{1,5})\/?$/.exec(address.trim());
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n > 0 && n <= 65535 ? n : undefined;
}

/** Every port of Herald's own listeners, and of the services it talks to on its own behalf. */
export function heraldOwnPorts(config: Config): number[] {
  const ports = [
    config.HERALD_API_PORT,
    config.HERALD_CODEC_PORT,
    config.HERALD_TEMPORAL_PORT,
    temporalHttpPort(config),
    temporalMetricsPort(config),
    config.HERALD_TEMPORAL_UI_PORT,
    // Issue 20: /metrics, /healthz, /readyz and the SDK's exporter behind them.
    config.HERALD_METRICS_PORT,
    sdkMetricsPort(config),
    // A cluster Herald did not start may still run on this machine.
    config.TEMPORAL_ADDRESS ? portOf(config.TEMPORAL_ADDRESS) : undefined,
    // An SMTP relay on loopback would take a POST body's lines as commands.
    config.HERALD_SMTP_HOST ? config.HERALD_SMTP_PORT : undefined,
  ];
  // Port 0 means "any free port": nothing to reserve.
  return [...new Set(ports.filter((p): p is number => typeof p === 'number' && p > 0))].sort((a, b) => a - b);
}

/** Which of Herald's processes listens: `npm start`, or `npm run worker` / `npm run api` on a cluster. */
export type HeraldProcess = 'start' | 'worker' | 'api';

/**
 * Listeners of one Herald process that would share a port, each as a sentence naming the
 * variables that set them. The dev server's HTTP and metrics ports follow its frontend's
 * (+10, +11) unless set, so `HERALD_TEMPORAL_PORT=2990` with the codec on 3001 is a clash
 * nobody typed; started anyway, one listener fails to bind well after Herald said it was up.
 */
export function listenerPortClashes(config: Config, proc: HeraldProcess): string[] {
  // A port derived from another variable is named with where it came from.
  const named = (name: keyof Config, from: string): string =>
    config[name] === undefined ? `${name} (${from})` : name;
  const listeners: Array<[string, number | undefined]> = [
    ['HERALD_API_PORT', proc !== 'worker' ? config.HERALD_API_PORT : undefined],
    [
      'HERALD_CODEC_PORT',
      proc !== 'worker' && config.HERALD_CODEC_ENDPOINT ? config.HERALD_CODEC_PORT : undefined,
    ],
    ['HERALD_METRICS_PORT', config.HERALD_METRICS_PORT],
    // The API process answers /metrics from its own registry; the SDK's exporter is a worker's.
    [
      named('HERALD_SDK_METRICS_PORT', 'HERALD_METRICS_PORT+1'),
      proc !== 'api' ? sdkMetricsPort(config) : undefined,
    ],
  ];
  if (proc === 'start' && !config.TEMPORAL_ADDRESS)
    listeners.push(
      ['HERALD_TEMPORAL_PORT', config.HERALD_TEMPORAL_PORT],
      [named('HERALD_TEMPORAL_HTTP_PORT', 'HERALD_TEMPORAL_PORT+10'), temporalHttpPort(config)],
      [named('HERALD_TEMPORAL_METRICS_PORT', 'HERALD_TEMPORAL_PORT+11'), temporalMetricsPort(config)],
      ['HERALD_TEMPORAL_UI_PORT', config.HERALD_TEMPORAL_UI_PORT],
    );
  const byPort = new Map<number, string[]>();
  // Port 0 is "any free port", never a clash.
  for (const [name, port] of listeners) if (port) byPort.set(port, [...(byPort.get(port) ?? []), name]);
  return [...byPort]
    .filter(([, names]) => names.length > 1)
    .map(
      ([port, names]) =>
        `${names.join(' and ')} are ${names.length === 2 ? 'both' : 'all'} port ${port}: each listener needs its own`,
    );
}

/** Refuses to start a process whose listeners would share a port (a ConfigError naming them). */
export function assertOwnPortsApart(config: Config, proc: HeraldProcess): void {
  const clashes = listenerPortClashes(config, proc);
  if (clashes.length > 0) throw ConfigError.listing(clashes);
}

/** The R-URL options every save-time check of a delivery URL uses. */
export function urlCheckOptionsFor(config: Config): UrlCheckOptions {
  return { allowInsecureHosts: config.HERALD_ALLOW_HTTP_HOSTS, reservedPorts: heraldOwnPorts(config) };
}

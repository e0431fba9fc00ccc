// Issue 20: one listener per process (worker, API or both under `npm start`), on loopback
// by default: GET /metrics (Herald's registry, then the SDK exporter's text), GET /healthz
// (the process is alive) and GET /readyz (everything it needs answers).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { heraldMetrics, type HeraldMetrics } from './metrics.js';
import { errorFields, log } from './log.js';
import { readSdkMetrics } from './sdk-runtime.js';

/** One readiness condition: undefined when met, else the problem's code and detail. */
export type ReadinessCheck = () => Promise<{ code: string; detail: string } | undefined>;

export interface ObservabilityServerOptions {
  host: string;
  port: number;
  checks: ReadinessCheck[];
  metrics?: HeraldMetrics;
  /** The SDK's Prometheus exporter, whose text is appended to /metrics. */
  sdkMetricsUrl?: string;
}

export interface ObservabilityServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

const problem = (status: number, code: string, title: string, detail?: string) =>
  JSON.stringify({
    type: `https://herald.dev/problems/${code}`,
    title,
    status,
    code,
    ...(detail ? { detail } : {}),
  });

export async function startObservabilityServer(
  opts: ObservabilityServerOptions,
): Promise<ObservabilityServer> {
  const metrics = opts.metrics ?? heraldMetrics;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) =>
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(405, 'application/problem+json', problem(405, 'method_not_allowed', 'Only GET'));
    if (path === '/healthz') return send(200, 'application/json', '{"ok":true}');
    if (path === '/readyz') {
      void ready(opts.checks).then((failure) =>
        failure
          ? send(503, 'application/problem+json', problem(503, failure.code, 'Not ready', failure.detail))
          : send(200, 'application/json', '{"ok":true}'),
      );
      return;
    }
    if (path === '/metrics') {
      void scrape(metrics, opts.sdkMetricsUrl).then(
        (text) => send(200, metrics.registry.contentType, text),
        (err: unknown) => {
          log.error('metrics scrape failed', errorFields(err));
          send(
            500,
            'application/problem+json',
            problem(500, 'internal_error', 'Metrics could not be collected'),
          );
        },
      );
      return;
    }
    send(404, 'application/problem+json', problem(404, 'not_found', 'No such resource'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function ready(checks: ReadinessCheck[]) {
  for (const check of checks) {
    const failure = await check().catch((err: unknown) => ({ code: 'not_ready', detail: String(err) }));
    if (failure) return failure;
  }
  return undefined;
}

/** Herald's metrics, then the SDK's; the SDK's part is left out (not failed) if its exporter is down. */
export async function scrape(metrics: HeraldMetrics, sdkMetricsUrl?: string): Promise<string> {
  const own = await metrics.registry.metrics();
  if (!sdkMetricsUrl) return own;
  const sdk = await readSdkMetrics(sdkMetricsUrl);
  return sdk ? `${own}\n${sdk}` : own;
}

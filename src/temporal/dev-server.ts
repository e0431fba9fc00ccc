import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { searchAttributeCliArgs } from '../shared/search-attributes.js';
import { portOwner } from './port-owner.js';
import { spawnTiedToParent } from './tied-child.js';
import { partitionConfig, taskQueuePartitions } from './task-queue-partitions.js';

export interface DevServerOptions {
  cliPath: string;
  /** SQLite file: state survives restarts. Omit for an in-memory server (tests). */
  dbFile?: string;
  ip?: string;
  port: number;
  uiPort?: number;
  /** The HTTP API and /metrics ports; unset, the CLI picks random ones (issue 13.3 pins them). */
  httpPort?: number;
  metricsPort?: number;
  namespace: string;
  logLevel?: string;
  /**
   * Where the Web UI asks to decode payloads: Herald's codec listener, its token in the path
   * (the dev server's UI can send no other credential; issue 13.2).
   */
  uiCodecEndpoint?: string;
  /** Echo the server's own output (the CLI is chatty at info level). */
  inheritOutput?: boolean;
  /**
   * Where the server's output goes. A file, never a pipe: a pipe to a parent that died
   * kills the server with SIGPIPE at its next log line (issue 14.3).
   */
  logFile?: string;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  logFile?: string;
  /** Resolves with the exit code when the server ends, for whatever reason. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

// Defaults the CLI dev server ships with are tuned for a laptop demo; these keep many
// sleeping deliveries and bursts of starts from being throttled by the server itself.
const DYNAMIC_CONFIG = [
  'frontend.namespaceRPS=100000',
  'frontend.namespaceRPS.visibility=10000',
  'history.rps=100000',
  'matching.rps=100000',
  'frontend.rps=100000',
  // The CLI turns this on so search attributes added at run time show at once; it makes
  // every start, upsert and visibility row re-read the cluster metadata from SQLite (a
  // sixth of the server's CPU per delivery, BENCHMARKS.md). Herald's attributes are
  // written with the namespace before the server starts, so the 60 s cache never misses them.
  'system.forceSearchAttributesCacheRefreshOnRead=false',
  // Lets the API's starts hand the first workflow task straight to the local worker.
  'system.enableEagerWorkflowStart=true',
  // Eager activity execution stays off: an eagerly dispatched send skips matching, and with
  // it the fair dispatch by endpoint (R-SMENGO-FAIR; fairness.test.ts failed with it on).
  // R-SMENGO-FAIR: round-robin task dispatch across deliveries' fairness keys (endpoints).
  'matching.useNewMatcher=true',
  'matching.enableFairness=true',
];

// SQLite's default rollback journal fsyncs several times per commit, and every workflow
// start commits a visibility row: profiling put fsync and journal syncs at a fifth of the
// server's CPU (BENCHMARKS.md). WAL with synchronous=NORMAL keeps every commit across a
// process crash (SIGKILL; the restart test) and can lose only the last commits to a power cut.
const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  // The partition count is kept beside the database, so its folder comes first.
  if (opts.dbFile) mkdirSync(dirname(opts.dbFile), { recursive: true });
  const dynamicConfig = [...DYNAMIC_CONFIG, ...partitionConfig(taskQueuePartitions(opts.dbFile))];
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(opts.port),
    '--namespace',
    opts.namespace,
    '--log-level',
    opts.logLevel ?? 'warn',
    ...searchAttributeCliArgs(),
    ...dynamicConfig.flatMap((kv) => ['--dynamic-config-value', kv]),
  ];
  if (opts.dbFile) {
    args.push('--db-filename', opts.dbFile, ...SQLITE_PRAGMAS.flatMap((p) => ['--sqlite-pragma', p]));
  }
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort));
  if (opts.httpPort) args.push('--http-port', String(opts.httpPort));
  if (opts.metricsPort) args.push('--metrics-port', String(opts.metricsPort));
  if (opts.uiPort && opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  else args.push('--headless');

  // A port already open is someone else's server (an orphan of a crashed Herald, say):
  // taking it for ours would run Herald against a process nobody supervises.
  for (const [what, port] of [
    ['Temporal frontend', opts.port],
    ['Temporal Web UI', opts.uiPort],
  ] as const) {
    if (port && (await portOpen(ip, port))) {
      const owner = portOwner(port);
      throw new Error(
        `port ${port} (${what}) is already in use${owner ? ` by pid ${owner.pid} (${owner.command})` : ''}; ` +
          'stop that process or choose other ports (HERALD_TEMPORAL_PORT, HERALD_TEMPORAL_UI_PORT)',
      );
    }
  }

  const logFile = opts.inheritOutput
    ? undefined
    : (opts.logFile ?? join(tmpdir(), `herald-temporal-${process.pid}-${opts.port}.log`));
  if (logFile) mkdirSync(dirname(logFile), { recursive: true });
  const logFd = logFile ? openSync(logFile, 'a', 0o600) : 'inherit';
  const child = spawnTiedToParent(opts.cliPath, args, {
    // Go's collector took an eighth of the server's CPU under load at the default GOGC=100;
    // a larger heap target trades a few hundred MB for that CPU (BENCHMARKS.md).
    env: { ...process.env, GOGC: process.env.GOGC ?? '400' },
    logFd,
  });
  if (typeof logFd === 'number') closeSync(logFd);
  const tail = () => {
    if (!logFile) return '';
    try {
      return readFileSync(logFile, 'utf8').slice(-4000);
    } catch {
      return '';
    }
  };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const address = `${ip}:${opts.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await Promise.race([exited.then(() => 'exited' as const), portOpen(ip, opts.port)]);
    if (state === 'exited') throw new Error(`Temporal dev server exited during start-up (log: ${logFile}):\n${tail()}`);
    if (state) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Temporal dev server did not open ${address} within 60 s (log: ${logFile}):\n${tail()}`);
    }
    await delay(200);
  }

  return {
    address,
    uiUrl: opts.uiPort ? `http://${ip}:${opts.uiPort}` : undefined,
    process: child,
    logFile,
    exited,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

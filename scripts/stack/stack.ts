import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ensureStack, type StackBinaries } from '../ensure-servers.mjs';
import { StackChild, runJob } from './child.js';
import { readEnvFiles } from './env-file.js';
import { LocalPostgres } from './postgres.js';
import { stackPorts, type StackPorts } from './ports.js';
import {
  DYNAMIC_CONFIG_FILE,
  HERALD_SETUP_SCRIPT,
  LOOPBACK_RECEIVER_ALLOWANCES,
  ROOT,
  SETUP_SCHEMA_SCRIPT,
  envFilesOf,
  heraldNodeArgs,
  type ServiceName,
} from './services.js';

export interface StackOptions {
  /** Secrets, ports, logs (and the PostgreSQL cluster unless running as root). */
  dir: string;
  workers?: number;
  ports?: Partial<StackPorts>;
  /** Start the Web UI when its server is installed (default true). */
  ui?: boolean;
  log?: (msg: string) => void;
}

export interface StackSecrets {
  postgresPassword: string;
  operatorKey: string;
  codecKey: string;
  codecToken: string;
}

export interface StackInfo {
  apiUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  operatorKey: string;
  codecKeys: string;
  codecUrl: string;
  codecToken: string;
  uiUrl?: string;
  ports: StackPorts;
  logDir: string;
}

/** Generated once per stack folder, kept owner-readable only; never logged. */
function loadSecrets(file: string): { secrets: StackSecrets; created: boolean } {
  if (existsSync(file))
    return { secrets: JSON.parse(readFileSync(file, 'utf8')) as StackSecrets, created: false };
  const s: StackSecrets = {
    postgresPassword: randomBytes(18).toString('base64url'),
    operatorKey: `op_${randomBytes(24).toString('base64url')}`,
    codecKey: randomBytes(32).toString('base64'),
    codecToken: randomBytes(32).toString('base64url'),
  };
  writeFileSync(file, JSON.stringify(s, null, 2), { mode: 0o600 });
  return { secrets: s, created: true };
}

const BASE_ENV_KEYS = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

/** The parent's non-configuration basics, so no stray HERALD_* or TEMPORAL_* of the shell leaks in. */
function baseEnv(): Record<string, string> {
  return Object.fromEntries(BASE_ENV_KEYS.flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])));
}

/**
 * Herald on a real Temporal server on PostgreSQL, two workers and an API, each a separate
 * process with the settings docker-compose.yml gives it (the same env files and scripts).
 */
export class Stack {
  readonly workers: StackChild[] = [];
  api?: StackChild;
  temporal?: StackChild;
  ui?: StackChild;
  postgres!: LocalPostgres;
  bins!: StackBinaries;
  ports!: StackPorts;
  secrets!: StackSecrets;
  private readonly logDir: string;
  private readonly log: (msg: string) => void;

  constructor(private readonly opts: StackOptions) {
    this.logDir = join(opts.dir, 'logs');
    this.log = opts.log ?? ((m) => process.stderr.write(`[herald:stack] ${m}\n`));
  }

  private envFor(service: ServiceName, topology: Record<string, string>): Record<string, string> {
    return { ...baseEnv(), ...readEnvFiles(envFilesOf(service)), ...topology };
  }

  get info(): StackInfo {
    const heraldEnv = readEnvFiles(envFilesOf('herald-worker'));
    return {
      apiUrl: `http://127.0.0.1:${this.ports.api}`,
      temporalAddress: `127.0.0.1:${this.ports.temporal}`,
      namespace: heraldEnv.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: heraldEnv.HERALD_TASK_QUEUE ?? 'herald',
      operatorKey: this.secrets.operatorKey,
      codecKeys: this.secrets.codecKey,
      codecUrl: `http://127.0.0.1:${this.ports.codec}`,
      codecToken: this.secrets.codecToken,
      uiUrl: this.ui ? `http://127.0.0.1:${this.ports.ui}` : undefined,
      ports: this.ports,
      logDir: this.logDir,
    };
  }

  async start(): Promise<StackInfo> {
    const t0 = Date.now();
    const step = (what: string) => this.log(`${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    mkdirSync(this.logDir, { recursive: true });
    this.bins = ensureStack();
    step('binaries ready');
    const workers = this.opts.workers ?? 2;
    this.ports = await stackPorts(join(this.opts.dir, 'ports.json'), workers, this.opts.ports);
    const { secrets, created } = loadSecrets(join(this.opts.dir, 'secrets.json'));
    this.secrets = secrets;

    this.postgres = new LocalPostgres(
      this.bins.pgBin,
      this.opts.dir,
      this.ports.postgres,
      this.secrets.postgresPassword,
    );
    // New secrets mean a new stack: a cluster left at the same place (under root it lives
    // outside the folder) was made with another password and is someone's old state.
    if (created) this.postgres.destroy();
    this.postgres.init();
    this.postgres.start();
    step(`PostgreSQL on 127.0.0.1:${this.ports.postgres}`);
    // The image's build step, here at every start so it matches the sources the workers run.
    const bundled = runJob({
      name: 'workflow-bundle',
      command: process.execPath,
      args: ['--import', 'tsx', 'src/workflow-bundle.ts', this.bundlePath],
      cwd: ROOT,
      env: baseEnv(),
      logFile: join(this.logDir, 'workflow-bundle.log'),
    });
    bundled.catch(() => undefined);

    await runJob({
      name: 'temporal-schema',
      command: 'sh',
      args: [SETUP_SCHEMA_SCRIPT],
      env: this.envFor('temporal-schema', {
        POSTGRES_SEEDS: '127.0.0.1',
        DB_PORT: String(this.ports.postgres),
        SQL_PASSWORD: this.secrets.postgresPassword,
        TEMPORAL_SCHEMA_DIR: this.bins.schemaDir,
        TEMPORAL_SQL_TOOL: this.bins.sqlTool,
      }),
      logFile: join(this.logDir, 'temporal-schema.log'),
    });
    step('schema created or upgraded');

    this.temporal = new StackChild({
      name: 'temporal',
      command: this.bins.server,
      // The template the temporalio/server image renders, from the same variables.
      args: [
        '--root',
        this.bins.serverRoot,
        '--config',
        'config',
        '--env',
        'docker',
        '--allow-no-auth',
        'start',
      ],
      env: this.envFor('temporal', {
        POSTGRES_SEEDS: '127.0.0.1',
        DB_PORT: String(this.ports.postgres),
        // The template reads visibility's port from this one, not DB_PORT.
        POSTGRES_PORT: String(this.ports.postgres),
        POSTGRES_PWD: this.secrets.postgresPassword,
        BIND_ON_IP: '127.0.0.1',
        DYNAMIC_CONFIG_FILE_PATH: DYNAMIC_CONFIG_FILE,
        FRONTEND_GRPC_PORT: String(this.ports.temporal),
        FRONTEND_HTTP_PORT: String(this.ports.temporalHttp),
        FRONTEND_MEMBERSHIP_PORT: String(this.ports.frontendMembership),
        HISTORY_GRPC_PORT: String(this.ports.history),
        HISTORY_MEMBERSHIP_PORT: String(this.ports.historyMembership),
        MATCHING_GRPC_PORT: String(this.ports.matching),
        MATCHING_MEMBERSHIP_PORT: String(this.ports.matchingMembership),
        WORKER_GRPC_PORT: String(this.ports.worker),
        WORKER_MEMBERSHIP_PORT: String(this.ports.workerMembership),
      }),
      logFile: join(this.logDir, 'temporal.log'),
      restartOnExit: true,
    });
    this.temporal.start();
    const temporal = this.temporal;
    // During start-up an exit is a configuration error, not a fault to ride out.
    const temporalDied = temporal.exited().then(() => {
      if (temporal.restarts > 0 || !temporal.running)
        throw new Error(`the Temporal server exited:\n${temporal.output()}`);
    });

    const setup = runJob({
      name: 'herald-temporal-setup',
      command: 'sh',
      args: [HERALD_SETUP_SCRIPT],
      env: this.envFor('herald-temporal-setup', {
        TEMPORAL_ADDRESS: this.info.temporalAddress,
        // The script runs `temporal`: the CLI the project's installer built.
        PATH: `${dirname(this.bins.temporalCli)}:${process.env.PATH ?? ''}`,
      }),
      logFile: join(this.logDir, 'herald-temporal-setup.log'),
    });
    temporalDied.catch(() => undefined);
    await Promise.race([setup, temporalDied]);
    step(`Temporal ${this.info.temporalAddress}: namespace and search attributes ready`);

    if (this.opts.ui !== false && this.bins.uiServer && this.bins.uiRoot) {
      this.ui = new StackChild({
        name: 'temporal-ui',
        command: this.bins.uiServer,
        args: ['--root', this.bins.uiRoot, '--env', 'docker', 'start'],
        env: this.envFor('temporal-ui', {
          TEMPORAL_ADDRESS: this.info.temporalAddress,
          TEMPORAL_UI_PORT: String(this.ports.ui),
          // The browser calls the codec itself; the token rides in the path (issue 13.2).
          TEMPORAL_CODEC_ENDPOINT: `${this.info.codecUrl}/${this.secrets.codecToken}`,
        }),
        logFile: join(this.logDir, 'temporal-ui.log'),
        restartOnExit: true,
      });
      this.ui.start();
    } else if (this.opts.ui !== false) {
      this.log('no Web UI: its server did not build here (see README)');
    }

    await bundled;
    step('workflow bundle built');
    for (let i = 0; i < workers; i++) this.workers.push(this.heraldChild('herald-worker', i));
    this.api = this.heraldChild('herald-api', 0);
    for (const w of this.workers) w.start();
    this.api.start();
    await Promise.all([this.waitForApi(), this.waitForWorkers(workers)]);
    step(`Herald API ${this.info.apiUrl}, ${workers} workers polling`);
    return this.info;
  }

  private get bundlePath(): string {
    return join(this.opts.dir, 'workflow-bundle.js');
  }

  private heraldChild(service: 'herald-worker' | 'herald-api', i: number): StackChild {
    const topology: Record<string, string> = {
      TEMPORAL_ADDRESS: this.info.temporalAddress,
      HERALD_OPERATOR_KEY: this.secrets.operatorKey,
      HERALD_CODEC_KEYS: this.secrets.codecKey,
      ...LOOPBACK_RECEIVER_ALLOWANCES,
    };
    if (service === 'herald-api') {
      Object.assign(topology, {
        HERALD_API_HOST: '127.0.0.1',
        HERALD_API_PORT: String(this.ports.api),
        HERALD_CODEC_ENDPOINT: 'true',
        HERALD_CODEC_HOST: '127.0.0.1',
        HERALD_CODEC_PORT: String(this.ports.codec),
        HERALD_CODEC_TOKEN: this.secrets.codecToken,
        HERALD_CODEC_CORS_ORIGINS: `http://127.0.0.1:${this.ports.ui},http://localhost:${this.ports.ui}`,
      });
      topology.HERALD_METRICS_PORT = String(this.ports.apiMetrics);
    } else {
      topology.HERALD_METRICS_PORT = String(this.ports.workerMetrics[i]);
      topology.HERALD_WORKFLOW_BUNDLE = this.bundlePath;
    }
    return new StackChild({
      name: service === 'herald-api' ? 'herald-api' : `herald-worker-${i + 1}`,
      command: process.execPath,
      args: heraldNodeArgs(service),
      cwd: ROOT,
      env: this.envFor(service, topology),
      logFile: join(this.logDir, `${service === 'herald-api' ? 'herald-api' : `herald-worker-${i + 1}`}.log`),
      restartOnExit: true,
    });
  }

  /** The API answers /readyz only once its Temporal does. */
  async waitForApi(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.api?.running) throw new Error(`herald-api exited:\n${this.api?.output() ?? ''}`);
      const ok = await fetch(`${this.info.apiUrl}/readyz`, { signal: AbortSignal.timeout(3_000) })
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return;
      await delay(250);
    }
    throw new Error(`herald-api not ready:\n${this.api?.output() ?? ''}`);
  }

  /**
   * Each running worker answers its own /readyz (issue 20): Temporal reachable and the worker
   * polling, the health check compose uses too.
   */
  async waitForWorkers(
    count = this.workers.filter((w) => w.running).length,
    timeoutMs = 180_000,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const w of this.workers)
        if (w.spec && !w.running && w.child) throw new Error(`${w.spec.name} exited:\n${w.output()}`);
      const ready = await Promise.all(
        this.workers.map((w, i) =>
          w.running
            ? fetch(`http://127.0.0.1:${this.ports.workerMetrics[i]}/readyz`, { signal: AbortSignal.timeout(3_000) })
                .then((r) => r.ok)
                .catch(() => false)
            : false,
        ),
      );
      if (ready.filter(Boolean).length >= count) return;
      await delay(500);
    }
    throw new Error(`workers not polling:\n${this.workers.map((w) => w.output()).join('\n')}`);
  }

  async restartTemporal(): Promise<void> {
    await this.temporal?.stop('SIGTERM', 30_000);
    this.temporal?.start();
  }

  restartPostgres(): void {
    this.postgres.restart();
  }

  /**
   * Stops every process, newest first. `kill: true` is for throwaway stacks (tests, chaos):
   * SIGKILL at once instead of letting workers finish their attempts.
   */
  async stop(opts: { kill?: boolean } = {}): Promise<void> {
    const signal = opts.kill ? 'SIGKILL' : 'SIGTERM';
    const all = [this.api, ...this.workers].filter((c): c is StackChild => !!c);
    await Promise.all(all.map((c) => c.stop(signal, 20_000)));
    await this.ui?.stop(signal, 10_000);
    await this.temporal?.stop(signal, 30_000);
    try {
      this.postgres?.stop(opts.kill ? 'immediate' : 'fast');
    } catch (err) {
      this.log(String(err));
    }
    for (const c of [...all, this.ui, this.temporal]) c?.closeLog();
  }
}

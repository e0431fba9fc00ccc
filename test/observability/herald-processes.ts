// `npm run worker` and `npm run api` as real child processes (their scripts' Node flags) on
// the shared dev server, with the output kept: the observability tests scrape their
// listeners and read their logs.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { inject } from 'vitest';
import { npmScriptNodeFlags } from '../../scripts/npm-script-flags.js';
import { freePorts } from '../helpers/ports.js';
import { TEST_OPERATOR_KEY } from '../helpers/api.js';
import { TEST_CODEC_KEY } from '../helpers/temporal.js';

export class ChildHerald {
  child?: ChildProcess;
  output = '';
  metricsPort = 0;
  sdkMetricsPort = 0;

  constructor(
    private readonly entry: 'src/worker.ts' | 'src/api/server.ts',
    private readonly env: Record<string, string>,
  ) {}

  get metricsUrl() {
    return `http://127.0.0.1:${this.metricsPort}`;
  }

  async start(readyLine: string, timeoutMs = 90_000) {
    const [metrics, sdk, codec] = await freePorts(3);
    this.metricsPort = Number(this.env.HERALD_METRICS_PORT ?? metrics);
    this.sdkMetricsPort = Number(this.env.HERALD_SDK_METRICS_PORT ?? sdk);
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('HERALD_') && !k.startsWith('OTEL_')),
    );
    const script = this.entry === 'src/worker.ts' ? 'worker' : 'api';
    const flags = npmScriptNodeFlags(script, this.entry);
    this.child = spawn(process.execPath, [...flags, '--import', 'tsx', this.entry], {
      env: {
        ...inherited,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        HERALD_CODEC_KEYS: TEST_CODEC_KEY,
        HERALD_OPERATOR_KEY: TEST_OPERATOR_KEY,
        HERALD_ALLOW_ADDRESSES: '127.0.0.1/32',
        HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1',
        HERALD_METRICS_PORT: String(this.metricsPort),
        HERALD_SDK_METRICS_PORT: String(this.sdkMetricsPort),
        HERALD_CODEC_PORT: String(codec),
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`${this.entry} exited early:\n${this.output}`);
      if (this.output.includes(readyLine)) return;
      await delay(200);
    }
    throw new Error(`${this.entry} did not come up:\n${this.output}`);
  }

  async stop() {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child?.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(t);
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { inject } from 'vitest';
import { npmScriptNodeFlags } from '../../scripts/npm-script-flags.js';
import { TEST_CODEC_KEY } from './temporal.js';

/**
 * A Herald worker as a real process (`npm run worker`'s entry and flags) on the shared dev server, polling the
 * given task queue: a second worker beside the test's in-process one, and one that can be
 * killed for real (kill -9).
 */
export class WorkerProcess {
  child?: ChildProcess;
  output = '';
  constructor(
    readonly taskQueue: string,
    private readonly env: Record<string, string> = {},
  ) {}

  async start(timeoutMs = 120_000): Promise<void> {
    this.child = spawn(
      process.execPath,
      [...npmScriptNodeFlags('worker', 'src/worker.ts'), '--import', 'tsx', 'src/worker.ts'],
      {
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          HERALD_TASK_QUEUE: this.taskQueue,
          HERALD_ALLOW_ADDRESSES: '127.0.0.1/32',
          HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1',
          HERALD_CODEC_KEYS: TEST_CODEC_KEY,
          HERALD_METRICS_PORT: '0',
          ...this.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`worker exited early:\n${this.output}`);
      // The SDK's state change, as a field of Herald's JSON log line (issue 20).
      if (this.output.includes('"state":"RUNNING"')) return;
      await delay(250);
    }
    throw new Error(`worker did not come up:\n${this.output}`);
  }

  /** kill -9, as a crash would. */
  async kill(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    this.child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    this.child.kill('SIGTERM');
    await Promise.race([exited, delay(15_000).then(() => this.child!.kill('SIGKILL'))]);
  }
}

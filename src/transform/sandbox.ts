import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EventEnvelope } from '../shared/delivery-types.js';
import {
  interpretResult,
  transformInput,
  type TransformedRequest,
  type TransformInput,
} from './expression.js';

import { heraldMetrics, type HeraldMetrics } from '../observability/metrics.js';

/** The evaluator's code: plain .mjs, so tsx, vitest and node all run it without a loader. */
export const SANDBOX_ENTRY = fileURLToPath(new URL('./sandbox-child.mjs', import.meta.url));
const JSONATA_DIR = dirname(createRequire(import.meta.url).resolve('jsonata/package.json'));
const STDERR_KEPT = 4096;

export interface SandboxOptions {
  /** Evaluator processes, i.e. evaluations at once. */
  processes?: number;
  /** Wall-clock limit per evaluation; the process is killed and replaced after it. */
  timeoutMs?: number;
  /** V8 heap of each process (--max-old-space-size); outgrowing it ends the process. */
  memoryMb?: number;
  /** Largest result (serialized JSON) a transformation may produce. */
  maxResultBytes?: number;
  /** JSONata's own call-depth guard: runaway recursion ends with a clear message. */
  maxDepth?: number;
  /**
   * How long a call may wait for a free process. Past it the call answers `busy`, so an
   * attempt never outlives its lease (HTTP timeout + 5 s) behind other tenants' slow
   * expressions: this plus `timeoutMs` stays under those 5 s.
   */
  queueTimeoutMs?: number;
}

export type EvalOutcome =
  { ok: true; json: string | undefined } | { ok: false; reason: string; busy?: boolean };
export type TransformOutcome =
  { ok: true; request: TransformedRequest } | { ok: false; reason: string; busy?: boolean };

interface Task {
  id: number;
  expression: string;
  input: TransformInput;
  resolve: (o: EvalOutcome) => void;
  queuedAt: number;
  queueTimer?: NodeJS.Timeout;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  task?: Task;
  timer?: NodeJS.Timeout;
  /** The end of its stderr: V8 says "heap out of memory" there before it aborts. */
  stderr: string;
}

export const SANDBOX_DEFAULTS = {
  processes: 2,
  timeoutMs: 1000,
  memoryMb: 64,
  maxResultBytes: 1024 * 1024,
  maxDepth: 500,
  queueTimeoutMs: 1500,
} satisfies Required<SandboxOptions>;

/**
 * A small pool of child processes that evaluate JSONata transformations (R-RH-TRANSFORM)
 * under a time and a memory limit. A call never rejects: a syntax error, a throw, a
 * timeout and an out-of-memory process all come back as `{ ok: false, reason }`, and a
 * killed process is replaced, so one tenant's runaway expression costs others at most a
 * wait for a free one. Processes, not worker threads: a worker thread's heap limit is
 * best effort, and some allocations (one huge array) abort the whole parent process
 * instead (nodejs/node#47224). Processes start on first use and do not keep the parent alive.
 */
export class TransformSandbox {
  readonly options: Required<SandboxOptions>;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  /** Processes that died before they were ready, in a row: the entry file cannot load. */
  private startFailures = 0;

  constructor(
    options: SandboxOptions = {},
    /** Issue 20: failures and the wait for a free process are counted here. */
    private readonly metrics: HeraldMetrics = heraldMetrics,
  ) {
    this.options = { ...SANDBOX_DEFAULTS, ...stripUndefined(options) };
  }

  /** Runs `expression` on the event and interprets the result as the request to send. */
  async transform(
    expression: string,
    event: EventEnvelope & { headers?: Record<string, string> },
  ): Promise<TransformOutcome> {
    const out = await this.evaluate(expression, transformInput(event));
    const result: TransformOutcome = out.ok ? interpretResult(out.json) : out;
    if (!result.ok) this.metrics.transformFailures.inc({ reason: result.busy ? 'busy' : 'failed' });
    return result;
  }

  /** Evaluates `expression` against `input`; the JSON text of the result, or why not. */
  evaluate(expression: string, input: TransformInput): Promise<EvalOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, reason: 'the transformation sandbox is closed' });
    return new Promise<EvalOutcome>((resolve) => {
      const task: Task = { id: this.nextId++, expression, input, resolve, queuedAt: Date.now() };
      task.queueTimer = setTimeout(() => {
        const i = this.queue.indexOf(task);
        if (i < 0) return;
        this.queue.splice(i, 1);
        resolve({ ok: false, busy: true, reason: 'no transformation process was free in time' });
      }, this.options.queueTimeoutMs);
      this.queue.push(task);
      this.pump();
    });
  }

  /** Processes currently alive (for tests and metrics). */
  get processCount(): number {
    return this.slots.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0))
      this.settle(t, { ok: false, reason: 'the transformation sandbox is closed' });
    const slots = this.slots.splice(0);
    for (const s of slots) {
      clearTimeout(s.timer);
      if (s.task) this.settle(s.task, { ok: false, reason: 'the transformation sandbox is closed' });
      s.task = undefined;
    }
    await Promise.all(slots.map((s) => kill(s.child)));
  }

  private settle(task: Task, outcome: EvalOutcome) {
    clearTimeout(task.queueTimer);
    task.resolve(outcome);
  }

  private pump() {
    while (this.queue.length > 0) {
      const free = this.slots.find((s) => s.ready && !s.task);
      if (!free) break;
      this.dispatch(free, this.queue.shift()!);
    }
    const starting = this.slots.filter((s) => !s.ready).length;
    if (this.queue.length > starting && this.slots.length < this.options.processes) this.spawn();
  }

  private dispatch(slot: Slot, task: Task) {
    clearTimeout(task.queueTimer);
    this.metrics.transformPoolWait.observe((Date.now() - task.queuedAt) / 1000);
    slot.task = task;
    slot.timer = setTimeout(() => {
      // Past the wall-clock limit: whatever the process is doing (a loop, a regex, a
      // builtin that never yields), it is killed and another takes its place.
      this.retire(slot);
      this.settle(task, {
        ok: false,
        reason: `the transformation ran longer than ${this.options.timeoutMs} ms`,
      });
      void kill(slot.child);
      this.pump();
    }, this.options.timeoutMs);
    try {
      slot.child.send({ id: task.id, expression: task.expression, input: task.input });
    } catch (err) {
      // The channel closed under us: this process is done; the task fails, not hangs.
      this.retire(slot);
      this.settle(task, { ok: false, reason: `the transformation process is gone: ${String(err)}` });
      void kill(slot.child);
      this.pump();
    }
  }

  private retire(slot: Slot) {
    clearTimeout(slot.timer);
    slot.task = undefined;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private spawn() {
    const { timeoutMs, maxDepth, maxResultBytes, memoryMb } = this.options;
    const child = fork(SANDBOX_ENTRY, [String(timeoutMs), String(maxDepth), String(maxResultBytes)], {
      // No loaders from the parent (tsx), no copy of its environment (secrets, keys).
      execArgv: [
        `--max-old-space-size=${memoryMb}`,
        `--max-semi-space-size=${Math.max(1, Math.ceil(memoryMb / 16))}`,
        '--disallow-code-generation-from-strings',
        ...permissionFlags(),
      ],
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const slot: Slot = { child, ready: false, stderr: '' };
    this.slots.push(slot);
    child.unref();
    child.channel?.unref();
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (d: string) => {
      slot.stderr = (slot.stderr + d).slice(-STDERR_KEPT);
    });
    (child.stderr as { unref?: () => void } | null)?.unref?.();

    child.on('message', (msg: { ready?: true; id?: number; ok?: boolean; json?: string; error?: string }) => {
      if (msg.ready) {
        slot.ready = true;
        this.startFailures = 0;
        this.pump();
        return;
      }
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      clearTimeout(slot.timer);
      slot.task = undefined;
      this.settle(task, msg.ok ? { ok: true, json: msg.json } : { ok: false, reason: msg.error ?? 'failed' });
      this.pump();
    });
    const gone = (code: number | null, signal: NodeJS.Signals | null) => {
      const task = slot.task;
      const wasReady = slot.ready;
      const wasOurs = this.slots.includes(slot);
      this.retire(slot);
      if (!wasOurs || this.closed) return;
      if (task) {
        const oom = /heap out of memory|Allocation failed/i.test(slot.stderr);
        this.settle(task, {
          ok: false,
          reason: oom
            ? `the transformation used more than its ${memoryMb} MB of memory`
            : `the transformation process stopped (${signal ?? `exit ${code}`})`,
        });
      }
      if (!wasReady && ++this.startFailures >= 3) {
        // The evaluator cannot even start (a broken install): answer instead of respawning forever.
        const reason = `the transformation sandbox cannot start: ${lastLine(slot.stderr) || `exit ${code ?? signal}`}`;
        for (const t of this.queue.splice(0)) this.settle(t, { ok: false, reason });
        this.startFailures = 0;
        return;
      }
      this.pump();
    };
    child.on('exit', gone);
    child.on('error', (err) => {
      slot.stderr = (slot.stderr + String(err)).slice(-STDERR_KEPT);
      // A process that could not be spawned at all never emits 'exit'.
      if (child.pid === undefined) gone(null, null);
    });
  }
}

/**
 * Node's permission model, where its flags are the ones tested here (Node 20): the
 * evaluator may read only its own file and JSONata, and may not write files, spawn
 * processes or start threads. Elsewhere the language and the empty environment remain.
 */
function permissionFlags(): string[] {
  if (process.versions.node.split('.')[0] !== '20') return [];
  return [
    '--experimental-permission',
    `--allow-fs-read=${dirname(SANDBOX_ENTRY)}/*`,
    `--allow-fs-read=${JSONATA_DIR}/*`,
    '--no-warnings',
  ];
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    // Referenced again so whoever awaits the kill sees the exit before the loop empties.
    child.ref();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

function lastLine(s: string): string {
  return s.trim().split('\n').pop() ?? '';
}

/** The sandbox a worker or the API builds from its configuration. */
export function sandboxOptionsFrom(config: {
  HERALD_TRANSFORM_TIMEOUT_MS: number;
  HERALD_TRANSFORM_MEMORY_MB: number;
  HERALD_TRANSFORM_PROCESSES: number;
}): SandboxOptions {
  return {
    timeoutMs: config.HERALD_TRANSFORM_TIMEOUT_MS,
    memoryMb: config.HERALD_TRANSFORM_MEMORY_MB,
    processes: config.HERALD_TRANSFORM_PROCESSES,
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// Runs the stall watch (worker-stall.ts) beside a worker: reads the SDK exporter and the
// worker's status every few seconds, and once the slots have been held idle for the window,
// asks the server whether this worker has polled since. Only both together make a stall: a
// worker whose completions wait on a slow or absent server also holds its slots for a while,
// and then the server cannot answer either.
import { lastWorkflowPoll, type TaskQueueDescriber } from '../temporal/worker-polls.js';
import type { Config } from '../config.js';
import { log } from './log.js';
import { readSdkMetrics, sdkMetricsUrl } from './sdk-runtime.js';
import type { ReadinessCheck } from './server.js';
import { stopProcess } from './stop-process.js';
import { StallWatch, workerSample, type WorkerSample, type WorkerStatusLike } from './worker-stall.js';

export interface StallReport {
  idleForMs: number;
  sample: WorkerSample;
  /** When the server last saw this worker poll for workflow tasks (null: it lists no such poll). */
  lastPollAt: string | null;
}

export interface StallWatchdogOptions {
  worker: { getStatus(): WorkerStatusLike; options: { taskQueue: string; identity: string } };
  connection: TaskQueueDescriber;
  namespace: string;
  sdkMetricsUrl: string;
  windowMs: number;
  intervalMs?: number;
  onStall(report: StallReport): void;
  now?: () => number;
}

export interface StallWatchdog {
  /** /readyz: a stalled worker is not ready. */
  readiness: ReadinessCheck;
  /** One look (the timer calls it); resolves to the report once stalled. */
  check(): Promise<StallReport | undefined>;
  stop(): void;
}

export function startStallWatchdog(opts: StallWatchdogOptions): StallWatchdog {
  const now = opts.now ?? Date.now;
  const watch = new StallWatch(opts.windowMs, now);
  let stalled: StallReport | undefined;
  let running = false;

  async function check(): Promise<StallReport | undefined> {
    if (stalled || running) return stalled;
    running = true;
    try {
      const text = await readSdkMetrics(opts.sdkMetricsUrl);
      const sample = text ? workerSample(text, opts.worker.options.taskQueue, opts.worker.getStatus()) : undefined;
      if (!watch.observe(sample) || !sample) return undefined;
      const last = await lastWorkflowPoll(
        opts.connection,
        opts.namespace,
        opts.worker.options.taskQueue,
        opts.worker.options.identity,
      ).catch(() => undefined);
      // No answer from the server proves nothing; a poll within the window disproves it.
      if (last === undefined || (last !== null && now() - last.getTime() < opts.windowMs)) return undefined;
      stalled = { idleForMs: watch.idleForMs(), sample, lastPollAt: last ? last.toISOString() : null };
      opts.onStall(stalled);
      return stalled;
    } finally {
      running = false;
    }
  }

  const timer = setInterval(() => void check(), opts.intervalMs ?? Math.min(10_000, Math.max(1_000, opts.windowMs / 6)));
  timer.unref();
  return {
    readiness: async () =>
      stalled
        ? {
            code: 'worker_stalled',
            detail: `the worker has held all its workflow-task slots idle for ${Math.round(stalled.idleForMs / 1000)} s and polls no workflow tasks`,
          }
        : undefined,
    check,
    stop: () => clearInterval(timer),
  };
}

/**
 * The watchdog as the worker and `npm start` run it; undefined when it is off or the SDK
 * exporter is. A stall is logged with what was seen, /readyz answers `worker_stalled`, and
 * `stop` is asked to end the process (with code 1; forced after 15 s, as shutting down a
 * stalled worker may wait on the very tasks it holds).
 */
export function watchWorkerForStall(
  config: Config,
  worker: StallWatchdogOptions['worker'],
  connection: TaskQueueDescriber,
  stop: (reason: string) => void,
): StallWatchdog | undefined {
  if (config.HERALD_WORKER_STALL_SECONDS === 0) return undefined;
  const url = sdkMetricsUrl(config);
  if (!url) {
    log.warn('the stall watchdog is off: it reads the SDK exporter, which HERALD_METRICS_PORT=0 turns off');
    return undefined;
  }
  return startStallWatchdog({
    worker,
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    sdkMetricsUrl: url,
    windowMs: config.HERALD_WORKER_STALL_SECONDS * 1000,
    onStall: (report) => {
      log.error(
        'the worker holds every workflow-task slot idle and polls no workflow tasks: stopping, so that a fresh worker takes its tasks',
        { idleForMs: report.idleForMs, lastPollAt: report.lastPollAt ?? 'none', ...report.sample },
      );
      stopProcess(stop, 'worker stalled');
    },
  });
}

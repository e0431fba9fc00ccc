// The SDK's core (1.24) can drop an activation it produced for a run whose workflow tasks
// waited together for a cache slot. It says so once, at ERROR, in the line below
// (workflow_stream.rs); the run then waits for that activation for good: it answers no
// query, takes no signal and completes no task until its worker restarts. Nothing else
// shows it: the worker polls and its slots move. So that line stops the process, as a stall
// does, for its supervisor to start a fresh worker (the run's tasks wait in Temporal).
import { log } from './log.js';
import { stopProcess } from './stop-process.js';
import type { ReadinessCheck } from './server.js';

export const SDK_WEDGE_MESSAGE = 'Extra buffered run should not have produced an activation';

type Listener = () => void;
const listeners = new Set<Listener>();

/** Called by the SDK logger with each line the SDK logs at ERROR. */
export function noteSdkError(message: string): void {
  if (!message.includes(SDK_WEDGE_MESSAGE)) return;
  for (const l of listeners) l();
}

export interface SdkWedgeWatch {
  /** /readyz: a worker with a wedged run is not ready. */
  readiness: ReadinessCheck;
  stop(): void;
}

/** Calls `onWedge` once, at the first dropped activation the SDK logs. */
export function watchForSdkWedge(onWedge: () => void): SdkWedgeWatch {
  let wedged = false;
  const listener: Listener = () => {
    if (wedged) return;
    wedged = true;
    onWedge();
  };
  listeners.add(listener);
  return {
    readiness: async () =>
      wedged
        ? { code: 'worker_wedged', detail: 'the SDK dropped a workflow activation; the worker is restarting' }
        : undefined,
    stop: () => listeners.delete(listener),
  };
}

/**
 * The watch as the worker and `npm start` run it: a dropped activation is logged, /readyz
 * answers `worker_wedged`, and the process ends with code 1 (stopProcess).
 */
export function stopOnSdkWedge(stop: (reason: string) => void): SdkWedgeWatch {
  return watchForSdkWedge(() => {
    log.error(
      'the SDK dropped a workflow activation: that run takes no task until the worker restarts; stopping, so that a fresh worker takes its tasks',
    );
    stopProcess(stop, 'SDK wedge');
  });
}

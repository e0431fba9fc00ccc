// Issue 20: what /readyz asks. Ready means Temporal answers; a worker must also be polling.
import type { ReadinessCheck } from './server.js';

interface Reachable {
  withDeadline<T>(deadline: number | Date, fn: () => Promise<T>): Promise<T>;
  workflowService: { getSystemInfo(req: object): Promise<unknown> };
}

export function temporalReachable(connection: Reachable): ReadinessCheck {
  return async () => {
    try {
      await connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.getSystemInfo({}));
      return undefined;
    } catch {
      return { code: 'temporal_unavailable', detail: 'Temporal is not reachable' };
    }
  };
}

export function workerPolling(worker: { getState(): string }): ReadinessCheck {
  return async () => {
    const state = worker.getState();
    return state === 'RUNNING' ? undefined : { code: 'worker_not_polling', detail: `the worker is ${state}` };
  };
}

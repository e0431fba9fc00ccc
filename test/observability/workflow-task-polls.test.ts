// Issue 16 (7): a real `npm run worker` keeps its workflow-task polls open on the task queue,
// where new deliveries' first tasks wait, as the settings say, and its SDK exporter shows an
// operator how many (temporal_num_pollers).
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { workerSample, type WorkerSample } from '../../src/observability/worker-stall.js';
import { ChildHerald } from './herald-processes.js';

async function pollsOf(worker: ChildHerald, taskQueue: string): Promise<WorkerSample | undefined> {
  const text = await fetch(`http://127.0.0.1:${worker.sdkMetricsPort}/metrics`).then((r) => r.text());
  return workerSample(text, taskQueue, { numInFlightWorkflowActivations: 0, numInFlightLocalActivities: 0 });
}

/** The polls an idle worker has open, once every one it means to open is out. */
async function settledPolls(worker: ChildHerald, taskQueue: string, expected: number) {
  let last: WorkerSample | undefined;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await delay(250)) {
    last = await pollsOf(worker, taskQueue);
    if (last && last.workflowPollers + last.stickyPollers === expected) break;
  }
  return { taskQueue: last?.workflowPollers, sticky: last?.stickyPollers };
}

describe('16 (7) the worker polls the task queue with more than the SDK default of 2', () => {
  const workers: ChildHerald[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
  });

  it('by default an idle worker keeps 5 polls open on the task queue and 5 on its sticky queue', async () => {
    const taskQueue = `polls-${Math.random().toString(36).slice(2, 8)}`;
    const worker = new ChildHerald('src/worker.ts', { HERALD_TASK_QUEUE: taskQueue });
    workers.push(worker);
    await worker.start('worker polling');
    // The SDK's own default would be 2 and 8.
    expect(await settledPolls(worker, taskQueue, 10)).toEqual({ taskQueue: 5, sticky: 5 });
  }, 120_000);
});

// A worker that holds every workflow-task slot while doing nothing with them polls no more
// workflow tasks, ever: its deliveries wait in Temporal (none is lost) but none is sent.
// Seen twice in the slow-endpoint bench (BENCHMARKS.md, sessions 25 and 26): all slots used,
// no workflow poller, no local activity and no activation running, the task queue's backlog
// growing for minutes. The SDK's core parks a new workflow's task, with its slot, until the
// full workflow cache frees room, and here it never handed them on. Nothing in the process
// can release those slots, so the watch says so (/readyz, the log) and the process stops, for
// its supervisor to start a fresh worker; the server hands the held tasks to it.
import { parseMetrics, sample } from './prometheus-text.js';

/** What the watch reads: the SDK's slot and poller gauges and the worker's own status. */
export interface WorkerSample {
  workflowSlotsUsed: number;
  workflowSlotsAvailable: number;
  workflowPollers: number;
  stickyPollers: number;
  localActivitySlotsUsed: number;
  inFlightActivations: number;
  inFlightLocalActivities: number;
}

/** The status fields of the SDK's Worker.getStatus() the watch reads. */
export interface WorkerStatusLike {
  numInFlightWorkflowActivations: number;
  numInFlightLocalActivities: number;
}

/** A sample from the SDK exporter's text for `taskQueue`, or undefined if it lacks the gauges. */
export function workerSample(metricsText: string, taskQueue: string, status: WorkerStatusLike): WorkerSample | undefined {
  const samples = parseMetrics(metricsText);
  const has = (name: string) => samples.some((s) => s.name === name && s.labels.task_queue === taskQueue);
  if (!has('temporal_worker_task_slots_used') || !has('temporal_num_pollers')) return undefined;
  const slots = (name: string, workerType: string) => sample(samples, name, { task_queue: taskQueue, worker_type: workerType });
  const pollers = (type: string) => sample(samples, 'temporal_num_pollers', { task_queue: taskQueue, poller_type: type });
  return {
    workflowSlotsUsed: slots('temporal_worker_task_slots_used', 'WorkflowWorker'),
    workflowSlotsAvailable: slots('temporal_worker_task_slots_available', 'WorkflowWorker'),
    workflowPollers: pollers('workflow_task'),
    stickyPollers: pollers('sticky_workflow_task'),
    localActivitySlotsUsed: slots('temporal_worker_task_slots_used', 'LocalActivityWorker'),
    inFlightActivations: status.numInFlightWorkflowActivations,
    inFlightLocalActivities: status.numInFlightLocalActivities,
  };
}

/**
 * Every workflow-task slot taken, yet no poll out, no activation and no local activity that
 * could be holding one: nothing this worker runs will give a slot back.
 */
export function holdsSlotsIdle(s: WorkerSample): boolean {
  return (
    s.workflowSlotsUsed > 0 &&
    s.workflowSlotsAvailable === 0 &&
    s.workflowPollers === 0 &&
    s.stickyPollers === 0 &&
    s.localActivitySlotsUsed === 0 &&
    s.inFlightActivations === 0 &&
    s.inFlightLocalActivities === 0
  );
}

/**
 * Stalled once every sample for `windowMs` held its slots idle. A busy worker passes through
 * such a sample between two tasks; it does not stay in it, because a finished task frees its
 * slot and a free slot starts a poll.
 */
export class StallWatch {
  private idleSince: number | undefined;

  constructor(
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a sample (undefined: unreadable, which proves nothing); true once stalled. */
  observe(s: WorkerSample | undefined): boolean {
    if (!s || !holdsSlotsIdle(s)) {
      this.idleSince = undefined;
      return false;
    }
    this.idleSince ??= this.now();
    return this.now() - this.idleSince >= this.windowMs;
  }

  /** How long the slots have been held idle, for the log. */
  idleForMs(): number {
    return this.idleSince === undefined ? 0 : this.now() - this.idleSince;
  }
}

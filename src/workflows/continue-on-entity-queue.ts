import { makeContinueAsNewFunc, workflowInfo, type Workflow } from '@temporalio/workflow';
import { entityTaskQueue } from '../shared/task-queues.js';

/**
 * continueAsNew onto the entity queue (src/shared/task-queues.ts): a run started on Herald's
 * main queue, before the entity queue existed, moves there at its next roll-over. The command
 * carried the run's own queue before; only that value changes, in a run's last command, so
 * running histories replay as they did and no patch marker is needed.
 */
export function continueOnEntityQueue<F extends Workflow>(...args: Parameters<F>): Promise<never> {
  return makeContinueAsNewFunc<F>({ taskQueue: entityTaskQueue(workflowInfo().taskQueue) })(...args);
}

import { proxyActivities } from '@temporalio/workflow';
import type {
  ReplayActivities,
  ReplayWindowInput,
  ReplayWindowResult,
} from '../activities/replay-activities.js';

const { replayWindow } = proxyActivities<ReplayActivities>({
  // Up to 10,000 queries and updates; the heartbeat carries progress, so a retry resumes
  // where the last one stopped instead of sending anything twice.
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5s', maximumInterval: '5 minutes', maximumAttempts: 10 },
});

/**
 * R-BIRD-REPLAY: a window replay runs here, in the background, after the API answered 202
 * (no count, no job id). The work needs visibility and updates, so it is one activity.
 */
export async function replayWindowWorkflow(input: ReplayWindowInput): Promise<ReplayWindowResult> {
  return replayWindow(input);
}

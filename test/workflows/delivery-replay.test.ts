// Issue 15 step 6: the delivery round moved into a pure reducer (policy/next-step.ts) and
// the workflow became its interpreter. Running deliveries replay their recorded histories
// on the new code, so it must issue exactly the commands the old code did, in the same
// order. These histories were recorded from the previous main (fixtures/capture-histories.ts):
// each replays here with the current workflow bundle and must raise no nondeterminism error.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { quietRuntime, workflowBundle } from '../helpers/temporal.js';

const dir = fileURLToPath(new URL('./fixtures/', import.meta.url));
interface Fixture {
  workflowId: string;
  runs: { events: string[]; history: string }[];
}
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({
    name: f.replace(/\.json$/, ''),
    ...(JSON.parse(readFileSync(dir + f, 'utf8')) as Fixture),
  }));

/** The scenarios the replay must cover (SPEC §3 rows and issues 13.5, 14.1, 14.2, 14.5). */
const REQUIRED = [
  'success-first-try',
  'retries-then-success',
  'exhausted',
  'dead-letter-400-railhook',
  'retry-after',
  'gone-410-standard',
  'gone-410-smengo',
  'private-address-railhook',
  'timeout-then-success',
  'deferral-paused',
  'worker-error',
  'worker-error-spent',
  'lifetime-while-deferred',
  'rollover',
  'dead-letter-retry',
  'bound-gone-smengo',
  'bound-exhausted-standard',
  'bound-paused-smengo',
  'bound-dropped-paused-smengo',
  // Issue 16: runs that close at their round's end (first attempt inline, a local activity),
  // recorded from issue 16's own code by fixtures/capture-histories-16.ts, so later changes keep them.
  '16-success-inline',
  '16-retries-then-success',
  '16-exhausted',
  '16-reopened-dlq-retry',
  // Recorded in a chaos run (starved, killed workers): the inline attempt's local activity
  // timed out, and the history holds the workflow tasks that then failed on replay (a replay
  // read the timeout as a plain failure, not a lost lease, and slept instead of sending).
  '16-inline-timed-out',
  '16-inline-timed-out-retried',
];

describe('15 delivery workflow replays histories recorded before the reducer (determinism)', () => {
  it('15 every required scenario has a recorded history, the rollover one over two runs', () => {
    expect(fixtures.map((f) => f.name).sort()).toEqual([...REQUIRED].sort());
    const rollover = fixtures.find((f) => f.name === 'rollover')!;
    expect(rollover.runs.length).toBeGreaterThanOrEqual(2);
    expect(rollover.runs[0]!.events.at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    // The bound ones carry health reports: signals to the endpoint are commands too.
    for (const name of ['bound-gone-smengo', 'bound-exhausted-standard'])
      expect(fixtures.find((f) => f.name === name)!.runs[0]!.events).toContain(
        'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
      );
    // Issue 16: the new shape's first attempt is the local activity's marker in the first task.
    for (const name of ['16-success-inline', '16-reopened-dlq-retry'])
      expect(
        fixtures.find((f) => f.name === name)!.runs[0]!.events.map((e) => e.replace('EVENT_TYPE_', '')),
      ).toEqual([
        'WORKFLOW_EXECUTION_STARTED',
        'WORKFLOW_TASK_SCHEDULED',
        'WORKFLOW_TASK_STARTED',
        'WORKFLOW_TASK_COMPLETED',
        'MARKER_RECORDED',
        'WORKFLOW_EXECUTION_COMPLETED',
      ]);
  });

  it('15: the recorded histories hold no signing secret in clear (the capture zeroes them)', () => {
    for (const f of fixtures)
      for (const r of f.runs) {
        const text = Buffer.from(r.history, 'base64').toString('latin1');
        expect(text.match(/whsec_(?!A{43}=)[A-Za-z0-9+/]+/g) ?? [], f.name).toEqual([]);
      }
  });

  it('15 R-CRASH: each recorded run replays on the new workflow code with no nondeterminism error', async () => {
    quietRuntime();
    const histories = fixtures.flatMap((f) =>
      f.runs.map((r, i) => ({
        workflowId: `${f.name}#${i}`,
        history: proto.temporal.api.history.v1.History.decode(Buffer.from(r.history, 'base64')),
      })),
    );
    const failures: string[] = [];
    let replayed = 0;
    for await (const r of Worker.runReplayHistories({ workflowBundle: workflowBundle() }, histories)) {
      replayed += 1;
      if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(histories.length);
  });
});

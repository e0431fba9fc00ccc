import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StallWatch, holdsSlotsIdle, workerSample, type WorkerSample } from '../../../src/observability/worker-stall.js';

// The SDK exporter's text from the worker that stopped polling in session 26's bench (trimmed
// to the gauges the watch reads): 40 of 40 workflow-task slots used, no workflow poller.
const stalledText = readFileSync(new URL('./fixtures/stalled-worker-sdk-metrics.txt', import.meta.url), 'utf8');
const idle = { numInFlightWorkflowActivations: 0, numInFlightLocalActivities: 0 };

const stalledSample = (): WorkerSample => workerSample(stalledText, 'herald', idle)!;

describe('a worker that holds its workflow-task slots idle', () => {
  it('reads the slots and pollers of its own task queue from the SDK exporter', () => {
    expect(stalledSample()).toEqual({
      workflowSlotsUsed: 40,
      workflowSlotsAvailable: 0,
      workflowPollers: 0,
      stickyPollers: 0,
      localActivitySlotsUsed: 0,
      inFlightActivations: 0,
      inFlightLocalActivities: 0,
    });
    expect(holdsSlotsIdle(stalledSample())).toBe(true);
    // Another task queue's worker, or an exporter without the gauges, gives no sample.
    expect(workerSample(stalledText, 'other', idle)).toBeUndefined();
    expect(workerSample('', 'herald', idle)).toBeUndefined();
  });

  it('is busy, not stalled, while an activation, a local activity or a poll is under way', () => {
    const s = stalledSample();
    expect(holdsSlotsIdle({ ...s, inFlightActivations: 1 })).toBe(false);
    expect(holdsSlotsIdle({ ...s, inFlightLocalActivities: 3 })).toBe(false);
    expect(holdsSlotsIdle({ ...s, localActivitySlotsUsed: 2 })).toBe(false);
    expect(holdsSlotsIdle({ ...s, workflowPollers: 1 })).toBe(false);
    expect(holdsSlotsIdle({ ...s, stickyPollers: 1 })).toBe(false);
    expect(holdsSlotsIdle({ ...s, workflowSlotsAvailable: 1 })).toBe(false);
    // An idle worker holds nothing.
    expect(holdsSlotsIdle({ ...s, workflowSlotsUsed: 0, workflowSlotsAvailable: 40 })).toBe(false);
  });

  it('is stalled only once every sample for the whole window held the slots idle', () => {
    let t = 0;
    const watch = new StallWatch(60_000, () => t);
    expect(watch.observe(stalledSample())).toBe(false);
    t = 59_999;
    expect(watch.observe(stalledSample())).toBe(false);
    t = 60_000;
    expect(watch.observe(stalledSample())).toBe(true);
    expect(watch.idleForMs()).toBe(60_000);
  });

  it('starts the window again after a busy sample or one it could not read', () => {
    let t = 0;
    const watch = new StallWatch(60_000, () => t);
    watch.observe(stalledSample());
    t = 40_000;
    expect(watch.observe({ ...stalledSample(), inFlightActivations: 1 })).toBe(false);
    t = 80_000;
    expect(watch.observe(stalledSample())).toBe(false);
    t = 100_000;
    expect(watch.observe(undefined)).toBe(false);
    t = 150_000;
    expect(watch.observe(stalledSample())).toBe(false);
    t = 210_000;
    expect(watch.observe(stalledSample())).toBe(true);
  });
});

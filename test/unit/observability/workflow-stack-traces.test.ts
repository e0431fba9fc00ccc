// Issue 16: the worker tells at start which stack-trace hook its workflow threads run with.
import { describe, expect, it } from 'vitest';
import { workflowStackTracesNote } from '../../../src/observability/workflow-stack-traces.js';

describe('issue 16: the start-up note on workflow stack traces', () => {
  it('with the preload: stack traces are off, and how to turn them on', () => {
    const note = workflowStackTracesNote({ HERALD_WORKFLOW_STACK_TRACES: false }, true);
    expect(note?.level).toBe('notice');
    expect(note?.message).toContain('HERALD_WORKFLOW_STACK_TRACES=true');
  });

  it('without the preload: a warning naming the flag the worker script has', () => {
    const note = workflowStackTracesNote({ HERALD_WORKFLOW_STACK_TRACES: false }, false);
    expect(note?.level).toBe('warn');
    expect(note?.message).toContain('--require=./scripts/workflow-thread-preload.cjs');
  });

  it('with HERALD_WORKFLOW_STACK_TRACES=true: nothing to tell', () => {
    expect(workflowStackTracesNote({ HERALD_WORKFLOW_STACK_TRACES: true }, true)).toBeUndefined();
  });
});

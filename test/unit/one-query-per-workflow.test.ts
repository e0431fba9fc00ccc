import { describe, expect, it } from 'vitest';
import {
  OneQueryPerWorkflow,
  oneQueryAtATime,
  queryLanesOpen,
} from '../../src/temporal/one-query-per-workflow.js';

function gate() {
  let open = () => {};
  let fail = (_e: Error) => {};
  const p = new Promise<string>((resolve, reject) => {
    open = () => resolve('answer');
    fail = reject;
  });
  return { p, open, fail };
}

// The SDK wedge of issue 16 (BENCHMARKS.md): two queries at once to one uncached workflow.
describe('issue 16: one query at a time per workflow', () => {
  it('R-CRASH: a second query to a workflow is sent only once the first has its answer', async () => {
    const first = gate();
    const sent: string[] = [];
    const a = oneQueryAtATime('default', 'ep_1', () => (sent.push('a'), first.p));
    const b = oneQueryAtATime('default', 'ep_1', async () => (sent.push('b'), 'b'));
    await Promise.resolve();
    await Promise.resolve();
    expect(sent).toEqual(['a']);
    first.open();
    expect(await a).toBe('answer');
    expect(await b).toBe('b');
    expect(sent).toEqual(['a', 'b']);
    await new Promise((r) => setImmediate(r));
    expect(queryLanesOpen()).toBe(0);
  });

  it('R-CRASH: queries to different workflows go at once', async () => {
    const first = gate();
    const sent: string[] = [];
    const a = oneQueryAtATime('default', 'ep_2', () => (sent.push('a'), first.p));
    const b = oneQueryAtATime('default', 'tn_2', async () => (sent.push('b'), 'b'));
    expect(await b).toBe('b');
    expect(sent).toEqual(['a', 'b']);
    first.open();
    await a;
    await new Promise((r) => setImmediate(r));
  });

  it('R-CRASH: a failed query does not hold the next one back, and its caller gets the error', async () => {
    const first = gate();
    const a = oneQueryAtATime('default', 'ep_3', () => first.p);
    const b = oneQueryAtATime('default', 'ep_3', async () => 'b');
    first.fail(new Error('query failed'));
    await expect(a).rejects.toThrow('query failed');
    expect(await b).toBe('b');
    await new Promise((r) => setImmediate(r));
    expect(queryLanesOpen()).toBe(0);
  });

  it('R-CRASH: queries to one workflow id in two namespaces go at once (the id names a workflow only within its namespace)', async () => {
    const first = gate();
    const sent: string[] = [];
    const input = { workflowExecution: { workflowId: 'ep_4' } } as Parameters<
      OneQueryPerWorkflow['query']
    >[0];
    const a = new OneQueryPerWorkflow('tenant-a').query(input, () => (sent.push('a'), first.p));
    const b = new OneQueryPerWorkflow('tenant-b').query(input, async () => (sent.push('b'), 'b'));
    expect(await b).toBe('b');
    expect(sent).toEqual(['a', 'b']);
    first.open();
    await a;
    await new Promise((r) => setImmediate(r));
    expect(queryLanesOpen()).toBe(0);
  });
});

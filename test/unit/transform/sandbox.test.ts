import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SANDBOX_ENTRY, TransformSandbox } from '../../../src/transform/sandbox.js';

const event = {
  id: 'evt_1',
  type: 'order.paid',
  occurredAt: '2026-01-01T00:00:00Z',
  body: JSON.stringify({
    type: 'order.paid',
    timestamp: '2026-01-01T00:00:00Z',
    data: { amount: 4200, secret: 's' },
  }),
};
const MAPPING = '{ "kind": type, "total": payload.amount / 100 }';
const TIMEOUT_MS = 1000;
// Starting a replacement process and CI load: what "within its limits" may add.
const SLACK_MS = 2500;

async function timed<T>(p: Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await p;
  return [r, performance.now() - t0];
}

describe('R-RH-TRANSFORM: the transformation sandbox', () => {
  // One process: every runaway case must leave it able to serve the next call.
  const sandbox = new TransformSandbox({ processes: 1, timeoutMs: TIMEOUT_MS, memoryMb: 48 });
  const memorySandbox = new TransformSandbox({ processes: 1, timeoutMs: 20_000, memoryMb: 48 });
  afterAll(() => Promise.all([sandbox.close(), memorySandbox.close()]));

  const stillServes = async () =>
    expect(await sandbox.transform(MAPPING, event)).toEqual({
      ok: true,
      request: {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"kind":"order.paid","total":42}',
      },
    });

  it('a mapping changes the body', async () => {
    await stillServes();
    const r = await sandbox.transform(
      '{ "body": { "event": type, "cents": payload.amount }, "headers": { "x-kind": type }, "method": "PATCH" }',
      event,
    );
    expect(r).toEqual({
      ok: true,
      request: {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-kind': 'order.paid' },
        body: '{"event":"order.paid","cents":4200}',
      },
    });
  });

  it('an expression that throws fails with its message', async () => {
    const r = await sandbox.transform('$error("no invoice for " & payload.amount)', event);
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('no invoice for 4200') });
    await stillServes();
  });

  it('a syntax error at send time fails instead of throwing', async () => {
    expect(await sandbox.transform('{ "a": ', event)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^S0/),
    });
  });

  it.each([
    ['infinite recursion', '( $f := function(){ $f() }; $f() )'],
    ['a loop that never ends', '( $loop := function($n){ $loop($n + 1) }; $loop(0) )'],
    [
      'a regex that backtracks forever (native code, never yields)',
      '$match("' + 'a'.repeat(40) + '!", /^(a+)+$/)',
    ],
  ])('%s fails within the time limit and the sandbox serves the next call', async (_name, expr) => {
    const [r, ms] = await timed(sandbox.transform(expr, event));
    expect(r).toMatchObject({ ok: false });
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    await stillServes();
  });

  it.each([
    ['doubling an array without end', '( $f := function($s){ $f($append($s, $s)) }; $f([1,2,3,4,5,6,7,8]) )'],
    ['one huge sequence at once', '$count([1..10000000].{ "a": $, "b": [$, $] })'],
    ['one huge string', '$pad("", 200000000)'],
  ])('%s ends the evaluator at its memory limit, not this process', async (_name, expr) => {
    // A long time limit, so only the memory limit can end it.
    const [r, ms] = await timed(memorySandbox.transform(expr, event));
    expect(r).toEqual({ ok: false, reason: 'the transformation used more than its 48 MB of memory' });
    expect(ms).toBeLessThan(10_000);
    expect(await memorySandbox.transform(MAPPING, event)).toMatchObject({ ok: true });
  });

  it('cannot reach the process through the input (no constructor, no prototype)', async () => {
    const r = await sandbox.transform(
      '( $F := payload.constructor.constructor; $F("return process.env")() )',
      event,
    );
    expect(r).toMatchObject({ ok: false, reason: expect.stringContaining('T1006') });
    expect(await sandbox.transform('$keys(payload.__proto__)', event)).toMatchObject({ ok: false });
  });

  it('refuses a result larger than its limit', async () => {
    const small = new TransformSandbox({ processes: 1, maxResultBytes: 1000 });
    try {
      expect(await small.transform('$pad("", 2000)', event)).toEqual({
        ok: false,
        reason: 'the result is larger than 1000 bytes',
      });
    } finally {
      await small.close();
    }
  });
});

describe('R-RH-TRANSFORM: other evaluations go on while one runs away', () => {
  it('a loop occupies one process; a mapping on the other answers at once', async () => {
    const sandbox = new TransformSandbox({ processes: 2, timeoutMs: 3000 });
    try {
      await Promise.all([sandbox.transform(MAPPING, event), sandbox.transform(MAPPING, event)]); // both started
      const loop = timed(sandbox.transform('( $f := function(){ $f() }; $f() )', event));
      const [ok, okMs] = await timed(sandbox.transform(MAPPING, event));
      expect(ok.ok).toBe(true);
      expect(okMs).toBeLessThan(1000);
      const [r, loopMs] = await loop;
      expect(r.ok).toBe(false);
      expect(loopMs).toBeGreaterThan(2900);
    } finally {
      await sandbox.close();
    }
  });

  it('a call that finds no free process in time is answered busy, not run late', async () => {
    const sandbox = new TransformSandbox({ processes: 1, timeoutMs: 2000, queueTimeoutMs: 300 });
    try {
      await sandbox.transform(MAPPING, event);
      const loop = sandbox.transform('( $f := function(){ $f() }; $f() )', event);
      expect(await sandbox.transform(MAPPING, event)).toMatchObject({ ok: false, busy: true });
      await loop;
    } finally {
      await sandbox.close();
    }
  });

  it('close() ends every process and answers later calls', async () => {
    const sandbox = new TransformSandbox({ processes: 2 });
    await sandbox.transform(MAPPING, event);
    expect(sandbox.processCount).toBeGreaterThan(0);
    await sandbox.close();
    expect(sandbox.processCount).toBe(0);
    expect(await sandbox.transform(MAPPING, event)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('closed'),
    });
  });
});

describe('R-RH-TRANSFORM: the evaluator file is found wherever Herald runs', () => {
  it('exists next to the sandbox module (vitest)', () => {
    expect(existsSync(SANDBOX_ENTRY)).toBe(true);
  });

  it('runs under tsx, as `npm start` and the Docker image run Herald', async () => {
    const script = `
      import { TransformSandbox } from './src/transform/sandbox.ts';
      const s = new TransformSandbox({ processes: 1 });
      const r = await s.transform('payload.amount', { id: 'e', type: 't', occurredAt: 'x', body: '{"amount":7}' });
      await s.close();
      console.log(JSON.stringify(r));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: new URL('../../..', import.meta.url), timeout: 30_000 },
    );
    expect(JSON.parse(stdout.trim())).toMatchObject({ ok: true, request: { body: '7' } });
  });
});

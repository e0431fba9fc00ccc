// Issue 16 (7): the API's delivery starts, at most `limit` in flight, the waiting ones taken in
// turn by endpoint, so a burst published to one endpoint does not hold back another's starts.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { StartGate, startGateFor } from '../../../src/flow/start-gate.js';
import { HeraldMetrics } from '../../../src/observability/metrics.js';

/** A start that ends when the test says, recording when it began. */
function heldStart(log: string[], name: string) {
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  return {
    run: async () => {
      log.push(name);
      await ended;
      return name;
    },
    end,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('16 (7) R-SMENGO-FAIR: starts in flight are bounded and waiting ones go in turn by endpoint', () => {
  it('runs at most `limit` starts at once and starts the next as one ends', async () => {
    const gate = new StartGate(2);
    const began: string[] = [];
    const starts = ['a1', 'a2', 'a3'].map((n) => heldStart(began, n));
    const done = starts.map((s) => gate.run('a', s.run));
    await tick();
    expect(began).toEqual(['a1', 'a2']);
    starts[0]!.end();
    await tick();
    expect(began).toEqual(['a1', 'a2', 'a3']);
    starts[1]!.end();
    starts[2]!.end();
    expect(await Promise.all(done)).toEqual(['a1', 'a2', 'a3']);
  });

  it('a start of a quiet endpoint waits behind one of a burst\'s starts, not behind the whole burst', async () => {
    const gate = new StartGate(1);
    const began: string[] = [];
    const first = heldStart(began, 'burst0');
    const running = gate.run('burst', first.run);
    const burst = Array.from({ length: 5 }, (_, i) => heldStart(began, `burst${i + 1}`));
    const queued = burst.map((s) => gate.run('burst', s.run));
    const quiet = heldStart(began, 'quiet');
    const quietDone = gate.run('quiet', quiet.run);
    await tick();
    expect(began).toEqual(['burst0']);

    // Turns alternate by endpoint: the burst's next, then the quiet one, then the burst's rest.
    first.end();
    await tick();
    burst[0]!.end();
    await tick();
    expect(began).toEqual(['burst0', 'burst1', 'quiet']);
    quiet.end();
    for (const s of burst.slice(1)) {
      await tick();
      s.end();
    }
    await Promise.all([running, quietDone, ...queued]);
    // Within one endpoint, starts keep their order (an ordered endpoint's queue relies on it).
    expect(began).toEqual(['burst0', 'burst1', 'quiet', 'burst2', 'burst3', 'burst4', 'burst5']);
  });

  it('a failed start frees its place and its caller gets the failure', async () => {
    const gate = new StartGate(1);
    const failed = gate.run('a', async () => {
      throw new Error('unavailable');
    });
    const next = gate.run('b', async () => 'ran');
    await expect(failed).rejects.toThrow('unavailable');
    expect(await next).toBe('ran');
  });

  it('issue 20: an operator sees the starts waiting at the gate as herald_delivery_starts_waiting', async () => {
    const metrics = new HeraldMetrics();
    const waitingNow = async () =>
      (await metrics.registry.getSingleMetricAsString('herald_delivery_starts_waiting')).split('\n').at(-1);
    const gate = startGateFor(1, metrics.deliveryStartsWaiting)!;
    const began: string[] = [];
    const starts = ['a1', 'a2', 'b1'].map((n) => heldStart(began, n));
    const done = starts.map((s, i) => gate.run(i < 2 ? 'a' : 'b', s.run));
    await tick();
    expect(await waitingNow()).toBe('herald_delivery_starts_waiting 2');
    starts[0]!.end();
    await tick();
    expect(await waitingNow()).toBe('herald_delivery_starts_waiting 1');
    for (const s of starts) s.end();
    await Promise.all(done);
    expect(await waitingNow()).toBe('herald_delivery_starts_waiting 0');
  });

  it('HERALD_STARTS_IN_FLIGHT: 16 by default, 0 is no limit, a negative count fails at start', () => {
    expect(loadConfig({}).HERALD_STARTS_IN_FLIGHT).toBe(16);
    expect(loadConfig({ HERALD_STARTS_IN_FLIGHT: '0' }).HERALD_STARTS_IN_FLIGHT).toBe(0);
    expect(() => loadConfig({ HERALD_STARTS_IN_FLIGHT: '-1' })).toThrow(/HERALD_STARTS_IN_FLIGHT/);
    expect(startGateFor(0)).toBeUndefined();
    expect(startGateFor(8)?.limit).toBe(8);
  });
});

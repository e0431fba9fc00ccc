import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { msToTs } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { configureLogging } from '../../../src/observability/log.js';
import { startStallWatchdog, watchWorkerForStall, type StallReport } from '../../../src/observability/stall-watchdog.js';
import type { TaskQueueDescriber } from '../../../src/temporal/worker-polls.js';

// The watchdog's decision, over HTTP from an exporter serving the text captured from the
// worker that stopped polling (session 26), and the server's poller list as given.
const stalledText = readFileSync(new URL('./fixtures/stalled-worker-sdk-metrics.txt', import.meta.url), 'utf8');
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(stalledText));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const worker = {
  options: { taskQueue: 'herald', identity: '32102@vm' },
  getStatus: () => ({ numInFlightWorkflowActivations: 0, numInFlightLocalActivities: 0 }),
};
const pollers = (lastPollAt: number | 'none' | 'unreachable'): TaskQueueDescriber => ({
  workflowService: {
    describeTaskQueue: async () => {
      if (lastPollAt === 'unreachable') throw new Error('14 UNAVAILABLE');
      if (lastPollAt === 'none') return { pollers: [] };
      return { pollers: [{ identity: '32102@vm', lastAccessTime: msToTs(lastPollAt) }] };
    },
  },
});

async function watchFor(lastPollAt: number | 'none' | 'unreachable') {
  let t = 1_000_000;
  const stalls: StallReport[] = [];
  const dog = startStallWatchdog({
    worker,
    connection: pollers(lastPollAt),
    namespace: 'default',
    sdkMetricsUrl: url,
    windowMs: 60_000,
    intervalMs: 3_600_000,
    onStall: (r) => stalls.push(r),
    now: () => t,
  });
  try {
    await dog.check();
    t += 60_000;
    await dog.check();
    return { stalls, readiness: await dog.readiness() };
  } finally {
    dog.stop();
  }
}

describe('the stall watchdog', () => {
  it('calls a stall once the slots were held idle for the window and the server saw no poll since', async () => {
    const { stalls, readiness } = await watchFor('none');
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toMatchObject({ idleForMs: 60_000, lastPollAt: null, sample: { workflowSlotsUsed: 40, workflowPollers: 0 } });
    expect(readiness?.code).toBe('worker_stalled');
  });

  it('a poll the server saw within the window disproves it', async () => {
    const { stalls, readiness } = await watchFor(1_000_000 + 30_000);
    expect(stalls).toEqual([]);
    expect(readiness).toBeUndefined();
  });

  it('a server that does not answer proves nothing', async () => {
    const { stalls, readiness } = await watchFor('unreachable');
    expect(stalls).toEqual([]);
    expect(readiness).toBeUndefined();
  });

  it('an old last poll is a stall', async () => {
    const { stalls } = await watchFor(1_000_000 - 240_000);
    expect(stalls.map((s) => s.lastPollAt)).toEqual([new Date(1_000_000 - 240_000).toISOString()]);
  });
});

describe('the stall watchdog at start', () => {
  it('says it is off when the SDK exporter it reads is off', () => {
    const lines: string[] = [];
    configureLogging({ sink: { write: (l) => lines.push(l) } });
    try {
      const off = watchWorkerForStall(loadConfig({ HERALD_METRICS_PORT: '0' }), worker, pollers('none'), () => {});
      expect(off).toBeUndefined();
      expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual([
        expect.stringContaining('the stall watchdog is off'),
      ]);
      // Turned off on purpose: nothing to say.
      lines.length = 0;
      expect(watchWorkerForStall(loadConfig({ HERALD_WORKER_STALL_SECONDS: '0' }), worker, pollers('none'), () => {})).toBeUndefined();
      expect(lines).toEqual([]);
    } finally {
      configureLogging({ sink: { write: (l) => process.stdout.write(l) } });
    }
  });
});

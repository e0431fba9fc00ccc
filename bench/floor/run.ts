// `npm run bench:floor`: what one workflow costs the embedded dev server itself, with no
// Herald code in it (issue 6: is 300 deliveries/s reachable with one workflow per delivery?).
// Same server, flags and SQLite settings as `npm start`; one worker, eager starts.
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureDevServer } from '../../scripts/ensure-servers.mjs';
import { startDevServer } from '../../src/temporal/dev-server.js';
import { deliverySearchAttributes } from '../../src/shared/search-attributes.js';
import { cpuSeconds, temporalProcessUnder } from '../herald.js';
import { closedLoop } from '../load.js';
import { freePort } from '../ports.js';
import { floorActivities } from './activities.js';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '3000' }, concurrency: { type: 'string', default: '64' } },
});
const n = Number(values.n);
const concurrency = Number(values.concurrency);
const log = (m: string) => console.error(`[floor ${new Date().toISOString().slice(11, 19)}] ${m}`);

Runtime.install({ logger: new DefaultLogger('WARN') });
const dir = mkdtempSync(join(tmpdir(), 'herald-floor-'));
const server = await startDevServer({
  cliPath: ensureDevServer(),
  dbFile: join(dir, 'temporal.sqlite'),
  port: await freePort(),
  namespace: 'default',
});
const connection = await NativeConnection.connect({ address: server.address });
const worker = await Worker.create({
  connection,
  taskQueue: 'floor',
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  activities: floorActivities,
  maxCachedWorkflows: 500,
  maxConcurrentWorkflowTaskExecutions: 40,
  maxConcurrentActivityTaskExecutions: 200,
});
const client = new Client({ connection });
const running = worker.run();
const sa = deliverySearchAttributes({
  deliveryId: 'dlv_floor',
  tenantId: 'tn_floor',
  endpointId: 'ep_floor',
  event: { id: 'evt_floor', type: 'floor.test', occurredAt: new Date().toISOString(), body: '{}' },
  policy: { preset: 'standard' },
  createdAt: new Date().toISOString(),
} as Parameters<typeof deliverySearchAttributes>[0]);

const rows: Record<string, unknown>[] = [];
for (const type of ['empty', 'oneActivity', 'oneActivityIndexed'] as const) {
  // The dev server runs behind a sh (src/temporal/tied-child.ts), whose own CPU is nil.
  const pid = temporalProcessUnder(process.pid);
  const c0 = cpuSeconds(pid);
  const h0 = process.cpuUsage();
  const t0 = performance.now();
  // Each lane waits for its workflow to end (a long poll each, so at most `concurrency`).
  await closedLoop(n, concurrency, (i) =>
    client.workflow.execute(type, {
      taskQueue: 'floor',
      workflowId: `${type}-${i}`,
      requestEagerStart: true,
      typedSearchAttributes: sa,
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const serverMs = ((cpuSeconds(pid) - c0) * 1000) / n;
  const h = process.cpuUsage(h0);
  rows.push({
    workflow: type,
    workflows: n,
    perSecond: Math.round((n / seconds) * 10) / 10,
    serverCpuMsPerWorkflow: Math.round(serverMs * 100) / 100,
    clientAndWorkerCpuMsPerWorkflow: Math.round(((h.user + h.system) / 1000 / n) * 100) / 100,
  });
  log(`${type}: ${n} in ${seconds.toFixed(1)} s`);
}
console.table(rows);
console.log(JSON.stringify({ cores: cpus().length, rows }));
worker.shutdown();
await running;
await connection.close();
await server.stop();
rmSync(dir, { recursive: true, force: true });

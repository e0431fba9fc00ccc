import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities, type ActivityDeps } from './activities/index.js';
import { PinnedDispatchers } from './activities/pinned-dispatcher.js';
import { loadConfig, type Config } from './config.js';
import { dataConverterFor } from './temporal/data-converter.js';
import { parseCidrList } from './policy/address.js';
import { assertPresetsFit } from './deliveries/policy-resolver.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows/index.ts', import.meta.url));

export interface HeraldWorkerOptions {
  connection: NativeConnection;
  config: Config;
  /** Override any activity dependency (tests hand in a fixed clock or resolver). */
  deps?: Partial<ActivityDeps>;
  /** Prebuilt bundle, so test suites bundle the workflows once. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  workerOptions?: Partial<WorkerOptions>;
}

export async function createHeraldWorker(opts: HeraldWorkerOptions) {
  const { config } = opts;
  assertPresetsFit(config);
  const dispatchers = new PinnedDispatchers();
  const activities = createActivities({
    dispatchers,
    allowAddresses: parseCidrList(config.HERALD_ALLOW_ADDRESSES),
    allowHttpHosts: config.HERALD_ALLOW_HTTP_HOSTS,
    now: () => new Date(),
    ...opts.deps,
  });
  const worker = await Worker.create({
    connection: opts.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.HERALD_TASK_QUEUE,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities,
    dataConverter: dataConverterFor(config),
    ...opts.workerOptions,
  });
  return { worker, close: () => dispatchers.close() };
}

async function main() {
  const config = loadConfig();
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required to run the worker on its own');
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const { worker, close } = await createHeraldWorker({ connection, config });
  await worker.run();
  await close();
  await connection.close();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

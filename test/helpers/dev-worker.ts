import type { Config } from '../../src/config.js';
import { createHeraldWorker } from '../../src/worker.js';
import { devServerClients, testConfig, workflowBundle } from './temporal.js';

/** A Herald worker on the shared dev server with its own task queue. */
export async function startDevWorker(overrides: Record<string, string> = {}) {
  const t = await devServerClients();
  const config: Config = testConfig(overrides);
  const { worker, close } = await createHeraldWorker({
    connection: t.nativeConnection,
    config,
    client: t.client,
    workflowBundle: workflowBundle(),
  });
  const running = worker.run();
  return {
    ...t,
    config,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await close();
      await t.close();
    },
  };
}

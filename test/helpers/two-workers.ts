import { createApp } from '../../src/api/app.js';
import { newTenant } from './api.js';
import { ReceiverProcess } from './receiver-process.js';
import { devServerClients, testConfig } from './temporal.js';
import { WorkerProcess } from './worker-process.js';

/**
 * Issue 17's set-up: flow limits must hold across workers, so two Herald worker processes
 * poll one task queue, the test process is only a client (an in-process API for one tenant),
 * and the receiver is a process of its own.
 */
export class TwoWorkers {
  readonly config = testConfig();
  readonly workers = [
    new WorkerProcess(this.config.HERALD_TASK_QUEUE),
    new WorkerProcess(this.config.HERALD_TASK_QUEUE),
  ];
  readonly receiver: ReceiverProcess;
  private clients: Awaited<ReturnType<typeof devServerClients>> | undefined;

  constructor(rules?: ConstructorParameters<typeof ReceiverProcess>[0]) {
    this.receiver = new ReceiverProcess(rules);
  }

  async start() {
    const [w, base] = await Promise.all([
      devServerClients(),
      this.receiver.start(),
      ...this.workers.map((p) => p.start()),
    ]);
    this.clients = w;
    const app = createApp({ client: w.client, config: this.config });
    return { w, base, app, tenant: await newTenant(app) };
  }

  async stop() {
    await Promise.all(this.workers.map((p) => p.stop()));
    await this.clients?.close();
    await this.receiver.stop();
  }
}

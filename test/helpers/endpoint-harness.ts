import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities/index.js';
import { createHttpSender } from '../../src/activities/http-sender.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { createSmtpMailer } from '../../src/notify/mailer.js';
import { createNotifier, createWebhookSenderFromHttpSender } from '../../src/notify/notifier.js';
import { parseCidrList } from '../../src/policy/address.js';
import { resolvePolicy, type PolicyOverrides, type PresetName } from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState } from '../../src/shared/delivery-types.js';
import { endpointViewQuery } from '../../src/shared/endpoint-messages.js';
import type { EndpointConfig, EndpointView } from '../../src/shared/endpoint-types.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { DELIVERY_WORKFLOW } from '../../src/shared/names.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { startEndpoint } from '../../src/endpoints/start-endpoint.js';
import { Receiver, type Responder } from './receiver.js';
import { TestSmtpServer } from './smtp.js';
import { timeSkippingEnv, workflowBundle } from './temporal.js';

let seq = 0;

/**
 * Endpoint workflows with their deliveries on the time-skipping server: the real worker,
 * activities and health rules, a real HTTP receiver and a real SMTP server on loopback.
 * Time moves only through `advance`, so days of health rules pass in seconds.
 */
export class EndpointHarness {
  readonly receiver = new Receiver();
  readonly smtp = new TestSmtpServer();
  baseUrl = '';
  readonly taskQueue = `ep-${Math.random().toString(36).slice(2, 8)}`;
  private worker?: Worker;
  private running?: Promise<void>;
  private readonly dispatchers = new PinnedDispatchers();
  private closeMailer?: () => void;

  private constructor(readonly env: TestWorkflowEnvironment) {}

  static async create(): Promise<EndpointHarness> {
    const h = new EndpointHarness(await timeSkippingEnv());
    h.baseUrl = await h.receiver.start();
    const smtp = await h.smtp.start();
    const httpDeps = {
      dispatchers: h.dispatchers,
      allowAddresses: parseCidrList(['127.0.0.1/32']),
      allowHttpHosts: ['127.0.0.1'],
      now: () => new Date(),
    };
    const mailer = createSmtpMailer({ host: smtp.host, port: smtp.port, from: 'Herald <herald@herald.test>' });
    h.closeMailer = () => mailer.close();
    h.worker = await Worker.create({
      connection: h.env.nativeConnection,
      taskQueue: h.taskQueue,
      workflowBundle: workflowBundle(),
      activities: createActivities({
        ...httpDeps,
        client: h.env.client,
        endpointCacheTtlMs: 0,
        notifier: createNotifier({
          mailer,
          sendWebhook: createWebhookSenderFromHttpSender(createHttpSender(httpDeps)),
          now: httpDeps.now,
        }),
      }),
    });
    h.running = h.worker.run();
    return h;
  }

  respond(responder: Responder) {
    this.receiver.respondWith(responder);
  }

  async createEndpoint(
    preset: PresetName,
    extra: Partial<EndpointConfig> & { policy?: PolicyOverrides } = {},
  ): Promise<{ endpointId: string; secret: string; handle: WorkflowHandle }> {
    const endpointId = `ep_${preset}_${++seq}_${Math.random().toString(36).slice(2, 6)}`;
    const secret = generateSecret();
    const handle = await startEndpoint(this.env.client, this.taskQueue, {
      endpointId,
      tenantId: 'tenant_ep',
      config: { url: `${this.baseUrl}/${endpointId}`, preset, createdBy: 'owner@tenant.test', ...extra },
      secrets: [{ secret, createdAt: await this.env.currentTimeMs() }],
      createdAt: await this.env.currentTimeMs(),
    });
    return { endpointId, secret, handle };
  }

  /** Starts one delivery bound to the endpoint (no target: it reads the endpoint at send time). */
  async publish(endpointId: string, preset: PresetName, overrides?: PolicyOverrides): Promise<WorkflowHandle> {
    const n = ++seq;
    const createdAt = new Date(await this.env.currentTimeMs()).toISOString();
    const input: DeliveryInput = {
      deliveryId: `dlv_${endpointId}_${n}`,
      tenantId: 'tenant_ep',
      endpointId,
      event: { id: `msg_${n}`, type: 'health.test', occurredAt: createdAt, body: JSON.stringify({ n }) },
      policy: resolvePolicy(preset, overrides),
      createdAt,
    };
    return this.env.client.workflow.start(DELIVERY_WORKFLOW, {
      workflowId: input.deliveryId,
      taskQueue: this.taskQueue,
      args: [input],
    });
  }

  view(endpointId: string): Promise<EndpointView> {
    return this.env.client.workflow.getHandle(endpointId).query(endpointViewQuery);
  }

  delivery(handle: WorkflowHandle): Promise<DeliveryState> {
    return handle.query(deliveryStateQuery);
  }

  /** Moves the test server's clock forward (timers fire in order on the way). */
  async advance(ms: number): Promise<void> {
    await this.env.sleep(ms);
  }

  /** Advances in steps until `check` holds, failing after `maxMs` of skipped time. */
  async advanceUntil(check: () => Promise<boolean>, stepMs: number, maxMs: number): Promise<void> {
    for (let t = 0; t <= maxMs; t += stepMs) {
      if (await check()) return;
      await this.env.sleep(stepMs);
    }
    throw new Error(`condition not met within ${maxMs} ms of skipped time`);
  }

  requestsFor(endpointId: string) {
    return this.receiver.requests.filter((r) => r.path === `/${endpointId}`);
  }

  async close(): Promise<void> {
    this.worker?.shutdown();
    await this.running?.catch(() => undefined);
    this.closeMailer?.();
    await this.dispatchers.close();
    await this.receiver.stop();
    await this.smtp.stop();
    await this.env.teardown();
  }
}

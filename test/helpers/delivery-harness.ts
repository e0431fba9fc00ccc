import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities, type SendGate } from '../../src/activities/index.js';
import type { Resolver } from '../../src/activities/dns-resolve.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { parseCidrList } from '../../src/policy/address.js';
import { resolvePolicy, type PolicyOverrides, type PresetName } from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState, DeliveryStatus, DeliveryTarget } from '../../src/shared/delivery-types.js';

type DirectInput = DeliveryInput & { target: DeliveryTarget };
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { DELIVERY_WORKFLOW } from '../../src/shared/names.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { Receiver, type ReceivedRequest, type Responder } from './receiver.js';
import { timeSkippingEnv, workflowBundle } from './temporal.js';

/**
 * Names tests may resolve. Anything else fails like NXDOMAIN without asking a real
 * resolver, so no test ever sends a DNS query off this machine.
 */
export type FakeDns = Record<string, string[] | 'hang'>;

export interface HarnessOptions {
  /** CIDRs exempt from R-SSRF; default 127.0.0.1/32 only, so 127.0.0.2 and ::1 are "private". */
  allow?: string[];
  dns?: FakeDns;
  gate?: SendGate;
}

export interface DeliverOptions {
  preset: PresetName;
  overrides?: PolicyOverrides;
  respond?: Responder;
  /** Full URL; default is the harness receiver's `/hook`. */
  url?: string;
  secrets?: string[];
  deliveryId?: string;
  body?: string;
}

let counter = 0;

/**
 * A time-skipping Temporal server, a worker running the real workflow and activities,
 * and a real HTTP receiver on 127.0.0.1: the delivery engine end to end, with days of
 * schedule passing in seconds.
 */
export class DeliveryHarness {
  readonly receiver = new Receiver();
  baseUrl = '';
  readonly taskQueue = `conf-${Math.random().toString(36).slice(2, 8)}`;
  private worker?: Worker;
  private running?: Promise<void>;
  private readonly dispatchers = new PinnedDispatchers();

  private constructor(
    readonly env: TestWorkflowEnvironment,
    private readonly opts: HarnessOptions,
  ) {}

  static async create(opts: HarnessOptions = {}): Promise<DeliveryHarness> {
    const h = new DeliveryHarness(await timeSkippingEnv(), opts);
    h.baseUrl = await h.receiver.start();
    const dns = opts.dns ?? {};
    const resolve: Resolver = async (host) => {
      const entry = dns[host];
      if (entry === 'hang') return new Promise(() => undefined);
      if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return entry.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    h.worker = await Worker.create({
      connection: h.env.nativeConnection,
      taskQueue: h.taskQueue,
      workflowBundle: workflowBundle(),
      activities: createActivities({
        dispatchers: h.dispatchers,
        allowAddresses: parseCidrList(opts.allow ?? ['127.0.0.1/32']),
        allowHttpHosts: ['127.0.0.1', '127.0.0.2', 'localhost', '[::1]', ...Object.keys(dns)],
        now: () => new Date(),
        resolve,
        gate: opts.gate,
      }),
    });
    h.running = h.worker.run();
    return h;
  }

  input(o: DeliverOptions, createdAtMs: number): DirectInput {
    const deliveryId = o.deliveryId ?? `dlv_conf_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
    const createdAt = new Date(createdAtMs).toISOString();
    return {
      deliveryId,
      tenantId: 'tenant_conf',
      endpointId: 'ep_conf',
      event: {
        id: `msg_${deliveryId}`,
        type: 'conformance.test',
        occurredAt: createdAt,
        body: o.body ?? JSON.stringify({ type: 'conformance.test', data: { deliveryId } }),
      },
      target: { url: o.url ?? `${this.baseUrl}/hook`, secrets: o.secrets ?? [generateSecret()] },
      policy: resolvePolicy(o.preset, o.overrides),
      createdAt,
    };
  }

  /** Starts a delivery; the returned handle's result() skips time to the end. */
  async start(o: DeliverOptions): Promise<{ handle: WorkflowHandle; input: DirectInput; requests: () => ReceivedRequest[] }> {
    if (o.respond) this.receiver.respondWith(o.respond);
    const input = this.input(o, await this.env.currentTimeMs());
    const first = this.receiver.requests.length;
    const handle = await this.env.client.workflow.start(DELIVERY_WORKFLOW, {
      workflowId: input.deliveryId,
      taskQueue: this.taskQueue,
      args: [input],
    });
    return { handle, input, requests: () => this.receiver.requests.slice(first) };
  }

  /**
   * Runs a delivery to its final status. Time skips through the whole schedule and the
   * replay window that follows it; the state returned is the one at the end.
   */
  async deliver(o: DeliverOptions): Promise<{ state: DeliveryState; input: DirectInput; requests: ReceivedRequest[] }> {
    const { handle, input, requests } = await this.start(o);
    const state = (await handle.result()) as DeliveryState;
    return { state, input, requests: requests() };
  }

  /** Skips time in steps until the delivery reaches one of `statuses`. */
  async waitForStatus(handle: WorkflowHandle, statuses: DeliveryStatus[], stepMs = 60_000, maxSteps = 10_000): Promise<DeliveryState> {
    for (let i = 0; i < maxSteps; i++) {
      const s = await handle.query(deliveryStateQuery);
      if (statuses.includes(s.status)) return s;
      await this.env.sleep(stepMs);
    }
    throw new Error(`delivery never reached ${statuses.join('/')}`);
  }

  async close(): Promise<void> {
    this.worker?.shutdown();
    await this.running?.catch(() => undefined);
    await this.dispatchers.close();
    await this.receiver.stop();
    await this.env.teardown();
  }
}

/** Gaps between consecutive attempts: from one attempt's end to the next one's start. */
export function attemptGapsMs(state: DeliveryState): number[] {
  const rows = state.attempts.filter((a) => a.kind === 'attempt');
  return rows.slice(1).map((a, i) => Date.parse(a.startedAt) - Date.parse(rows[i]!.finishedAt));
}

export const statusResponder =
  (...statuses: Array<number | { status: number; headers?: Record<string, string>; body?: string }>): Responder =>
  (_req, i, res) => {
    const s = statuses[Math.min(i, statuses.length - 1)]!;
    const spec = typeof s === 'number' ? { status: s } : s;
    res.writeHead(spec.status, spec.headers ?? {}).end(spec.body ?? '');
  };

// `npm run chaos`: a bounded, seeded run against the production-shaped stack (issue 19).
// Publishes events at a steady rate to endpoints whose loopback receivers answer with a
// seeded mix of failures, while it kills workers, restarts Temporal and PostgreSQL and kills
// the API; then accounts for every event the API accepted. Writes a JSON report.
//
//   npm run chaos -- [--events 20000] [--endpoints 20] [--rate 40] [--seed 19] [--out bench/chaos.json]
//   npm run chaos -- --short       (the CI run: 2,000 events, same faults, a few minutes)
//   npm run chaos -- --account <input.json[.gz]>   (account again for a run's saved input, no stack)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Stack } from '../scripts/stack/stack.js';
import { Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ChaosReceivers, seeded, type Arrival } from './chaos-receiver.js';
import {
  accountFor,
  type Accepted,
  type AccountingInput,
  type Fault,
  type FinalState,
  leaseRanOut,
} from './chaos-accounting.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const short = process.argv.includes('--short');
const EVENTS = arg('events', short ? 2000 : 20_000);
const ENDPOINTS = arg('endpoints', 20);
const RATE = arg('rate', 40);
const SEED = arg('seed', 19);
const outIdx = process.argv.indexOf('--out');
const OUT =
  outIdx >= 0
    ? process.argv[outIdx + 1]!
    : short
      ? join(tmpdir(), 'herald-chaos-short.json')
      : 'bench/chaos.json';
const DRAIN_TIMEOUT_MS = arg('drain-timeout', 900) * 1000;
/** The endpoints' policy: short enough for the run to drain in minutes. */
const POLICY = { maxAttempts: 6, retryDelays: [1, 2, 2, 3, 3], timeoutSeconds: 2 };
const GONE_ENDPOINT = ENDPOINTS - 1;

const log = (m: string) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'herald-chaos-'));
  const stack = new Stack({ dir, workers: 2, ui: false, log });
  const receivers = new ChaosReceivers(SEED, GONE_ENDPOINT, POLICY.timeoutSeconds * 1000 + 1500);
  const faults: Fault[] = [];
  const t0 = Date.now();
  // Ctrl-C or a CI timeout: the stack's processes are process groups of their own.
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      void stack
        .stop({ kill: true })
        .catch(() => undefined)
        .finally(() => {
          stack.postgres?.destroy();
          rmSync(dir, { recursive: true, force: true });
          process.exit(130);
        });
    });
  try {
    const [info, base] = await Promise.all([stack.start(), receivers.start()]);
    log(`stack up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const admin = await fetch(`${info.apiUrl}/v1/admin/tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${info.operatorKey}` },
      body: JSON.stringify({ name: 'Chaos' }),
    });
    if (admin.status !== 201) throw new Error(`tenant: ${admin.status} ${await admin.text()}`);
    const { apiKey } = (await admin.json()) as { apiKey: string };
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${info.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    const endpointIds: string[] = [];
    for (let e = 0; e < ENDPOINTS; e++) {
      const r = await call('POST', '/v1/endpoints', {
        url: `${base}/e${e}`,
        preset: 'standard',
        eventTypes: [`chaos.e${e}`],
        policy: POLICY,
      });
      if (r.status !== 201) throw new Error(`endpoint ${e}: ${r.status} ${await r.text()}`);
      endpointIds.push(((await r.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId);
    }

    // --- publisher: a steady rate; each 503 (or refused connection) is retried with the
    // same event id, which makes the retry idempotent (R-IDEMP), as the README tells clients.
    const accepted: Accepted[] = [];
    let rejected = 0;
    let publishRetries = 0;
    const publishOne = async (i: number) => {
      const id = `evt_chaos_${SEED}_${i}`;
      const endpoint = i % ENDPOINTS;
      for (let tries = 0; ; tries++) {
        try {
          const r = await call('POST', '/v1/events', { id, type: `chaos.e${endpoint}`, payload: { i } });
          if (r.status === 202) {
            const b = (await r.json()) as { deliveries: Array<{ id: string }> };
            accepted.push({
              eventId: id,
              endpoint,
              deliveryIds: b.deliveries.map((d) => d.id),
              at: Date.now(),
            });
            return;
          }
          const text = await r.text();
          if (r.status !== 503 && r.status !== 429 && r.status < 500) {
            rejected++;
            log(`publish ${id} refused ${r.status}: ${text.slice(0, 200)}`);
            return;
          }
          const after = Number(r.headers.get('retry-after'));
          await delay(Number.isFinite(after) && after > 0 ? after * 1000 : 500);
        } catch {
          await delay(500);
        }
        publishRetries++;
        if (tries > 600) throw new Error(`publish ${id} never accepted`);
      }
    };

    const rand = seeded(`faults:${SEED}`);
    const publishMs = (EVENTS / RATE) * 1000;
    const pubStart = Date.now();
    const faultRun = (async () => {
      const plan: Array<{ at: number; kind: Fault['kind'] }> = [];
      for (let at = 10_000; at < publishMs; at += 10_000) plan.push({ at, kind: 'worker_kill' });
      plan.push({ at: publishMs * 0.25, kind: 'api_kill' });
      plan.push({ at: publishMs * 0.45, kind: 'temporal_restart' });
      plan.push({ at: publishMs * 0.65, kind: 'postgres_restart' });
      plan.sort((a, b) => a.at - b.at);
      for (const p of plan) {
        const wait = pubStart + p.at - Date.now();
        if (wait > 0) await delay(wait);
        const f: Fault = { kind: p.kind, at: Date.now(), until: 0, target: '' };
        if (p.kind === 'worker_kill') {
          const w = stack.workers[Math.floor(rand() * stack.workers.length)]!;
          f.target = w.spec.name;
          await w.kill9();
          // Restarted after 2 s, as a supervisor would; kills overlap restarts otherwise. Two
          // kills of one worker can fall within those 2 s when a slow API or Temporal restart
          // held the plan back: the second restart then finds it already running.
          void delay(2000).then(() => {
            if (!w.running) w.start();
            f.until = Date.now();
          });
        } else if (p.kind === 'api_kill') {
          f.target = 'herald-api';
          await stack.api!.kill9();
          await delay(2000);
          stack.api!.start();
          await stack.waitForApi();
          f.until = Date.now();
        } else if (p.kind === 'temporal_restart') {
          f.target = 'temporal';
          await stack.restartTemporal();
          f.until = Date.now();
        } else {
          f.target = 'postgresql';
          await stack.postgres.restartAsync();
          f.until = Date.now();
        }
        faults.push(f);
        log(`fault ${f.kind} ${f.target}`);
      }
    })();

    const inFlight = new Set<Promise<void>>();
    for (let i = 0; i < EVENTS; i++) {
      const due = pubStart + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await delay(wait);
      while (inFlight.size >= 200) await Promise.race(inFlight);
      const p = publishOne(i).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (i % 500 === 0)
        log(`published ${i}/${EVENTS} (accepted ${accepted.length}, receiver saw ${receivers.log.length})`);
    }
    await Promise.all(inFlight);
    await faultRun;
    await delay(2500);
    const publishEnd = Date.now();
    const lastFault = Math.max(...faults.map((f) => Math.max(f.at, f.until)));
    log(
      `publishing done: ${accepted.length} accepted, ${rejected} refused, ${publishRetries} publish retries`,
    );

    // --- drain: until every accepted event is delivered, or final in the API.
    const finals = new Map<string, FinalState>();
    const deliveredIds = () =>
      new Set(receivers.log.filter((a) => a.outcome === 'ok').map((a) => a.webhookId));
    const drainDeadline = Date.now() + DRAIN_TIMEOUT_MS;
    let settledAt = 0;
    for (;;) {
      const delivered = deliveredIds();
      const open = accepted.filter((a) => !delivered.has(a.eventId) && !finals.has(a.eventId));
      if (open.length === 0) {
        settledAt = Date.now();
        break;
      }
      if (Date.now() > drainDeadline) break;
      // Ask the API only about events not delivered yet, a few at a time.
      for (let k = 0; k < open.length; k += 20) {
        await Promise.all(
          open.slice(k, k + 20).map(async (a) => {
            if (a.deliveryIds.length === 0) return finals.set(a.eventId, { status: 'no_delivery' });
            const r = await call('GET', `/v1/deliveries/${a.deliveryIds[0]}`).catch(() => undefined);
            if (r?.status !== 200) return;
            const d = (await r.json()) as FinalState;
            if (['exhausted', 'dead', 'failed'].includes(d.status)) finals.set(a.eventId, d);
          }),
        );
      }
      log(`draining: ${open.length} open`);
      await delay(3000);
    }

    // The API's word on the delivered ones too, so a 2xx the API does not know of shows.
    const apiStatus = new Map<string, string>();
    for (let k = 0; k < accepted.length; k += 25) {
      await Promise.all(
        accepted.slice(k, k + 25).map(async (a) => {
          if (!a.deliveryIds[0]) return;
          const r = await call('GET', `/v1/deliveries/${a.deliveryIds[0]}`).catch(() => undefined);
          if (r?.status === 200) apiStatus.set(a.eventId, ((await r.json()) as FinalState).status);
        }),
      );
    }

    // A same-attempt repeat without an injected fault: did Temporal record the attempt's lease
    // running out (leaseRanOut: an activity's or the first workflow task's timeout)? Then the worker never reported that attempt in
    // time (on this shared machine: starved of CPU) and Temporal re-dispatched it.
    const okButNotSucceeded = receivers.log
      .filter((a) => a.outcome === 'ok')
      .filter((a) => ['exhausted', 'dead', 'failed'].includes(apiStatus.get(a.webhookId) ?? ''))
      .map((a) => a.deliveryId);
    const leaseExpired = await leaseExpiries(
      info.temporalAddress,
      info.namespace,
      receivers.log,
      okButNotSucceeded,
    );
    // Still open at the deadline: what Temporal says of each (a failing workflow task's cause).
    const delivered = deliveredIds();
    const stuckIds = accepted
      .filter((a) => !delivered.has(a.eventId) && !finals.has(a.eventId))
      .flatMap((a) => a.deliveryIds.slice(0, 1));
    const stuck = await diagnose(info.temporalAddress, info.namespace, stuckIds.slice(0, 50));
    for (const d of stuck) log(`still open: ${JSON.stringify(d)}`);

    const input: AccountingInput = {
      seed: SEED,
      events: EVENTS,
      endpoints: ENDPOINTS,
      rate: RATE,
      policy: POLICY,
      goneEndpoint: GONE_ENDPOINT,
      accepted,
      rejected,
      publishRetries,
      arrivals: receivers.log,
      finals,
      apiStatus,
      faults,
      leaseExpired,
      lastFault,
      settledAt,
      publishStart: pubStart,
      publishEnd,
      command: `npm run chaos -- ${process.argv.slice(2).join(' ')}`.trim(),
    };
    // The run's raw record, so a change to the accounting can be checked against it.
    const saved = join(tmpdir(), `herald-chaos-input-${SEED}-${Date.now()}.json`);
    writeFileSync(saved, serialize(input));
    log(`accounting input saved to ${saved}`);
    report(input, stuck);
  } finally {
    await stack.stop({ kill: true }).catch(() => undefined);
    stack.postgres?.destroy();
    await receivers.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(input: AccountingInput, stuck: unknown[] = [], accountedAgain?: string) {
  const r = accountFor(input);
  if (stuck.length > 0) Object.assign(r, { stillOpen: stuck });
  // The run's figures, accounted for again from its saved record by a later accounting.
  if (accountedAgain) Object.assign(r, { accountedAgain: `npm run chaos -- --account ${accountedAgain}` });
  writeFileSync(OUT, `${JSON.stringify(r, null, 2)}\n`);
  printTable(r);
  log(`report written to ${OUT}`);
  if (r.figures.lost !== 0 || r.figures.unexplained !== 0) process.exitCode = 1;
}

function serialize(i: AccountingInput): string {
  return JSON.stringify({
    ...i,
    finals: [...i.finals],
    apiStatus: [...i.apiStatus],
    leaseExpired: [...i.leaseExpired],
  });
}

function deserialize(text: string): AccountingInput {
  const raw = JSON.parse(text) as AccountingInput & {
    finals: [string, FinalState][];
    apiStatus: [string, string][];
    leaseExpired: string[];
  };
  return {
    ...raw,
    finals: new Map(raw.finals),
    apiStatus: new Map(raw.apiStatus),
    leaseExpired: new Set(raw.leaseExpired),
  };
}

/** Deliveries that had a request repeated for one attempt (or `alsoCheck`), and whose history shows a lease timeout. */
async function leaseExpiries(
  address: string,
  namespace: string,
  arrivals: Arrival[],
  alsoCheck: string[],
): Promise<Set<string>> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const a of arrivals) {
    const key = `${a.deliveryId}:${a.attempt}`;
    if (seen.has(key)) repeated.add(a.deliveryId);
    seen.add(key);
  }
  for (const id of alsoCheck) repeated.add(id);
  const out = new Set<string>();
  const connection = await Connection.connect({ address });
  try {
    for (const workflowId of repeated) {
      let token: Uint8Array | undefined;
      do {
        const page: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse =
          await connection.workflowService.getWorkflowExecutionHistory({
            namespace,
            execution: { workflowId },
            nextPageToken: token,
          });
        const timedOut = page.history?.events?.some(leaseRanOut);
        if (timedOut) out.add(workflowId);
        token = page.nextPageToken?.length ? page.nextPageToken : undefined;
      } while (token && !out.has(workflowId));
    }
  } finally {
    await connection.close();
  }
  return out;
}

/** Why a delivery is still open: its run's status, its history's length and the last failed workflow task. */
async function diagnose(address: string, namespace: string, workflowIds: string[]) {
  const connection = await Connection.connect({ address });
  try {
    return await Promise.all(
      workflowIds.map(async (workflowId) => {
        try {
          const d = await connection.workflowService.describeWorkflowExecution({
            namespace,
            execution: { workflowId },
          });
          const h = await connection.workflowService.getWorkflowExecutionHistory({
            namespace,
            execution: { workflowId },
          });
          const events = h.history?.events ?? [];
          const failed = events.filter((e) => e.workflowTaskFailedEventAttributes).at(-1);
          return {
            workflowId,
            status: d.workflowExecutionInfo?.status,
            historyLength: Number(d.workflowExecutionInfo?.historyLength ?? 0),
            pendingTaskAttempt: d.pendingWorkflowTask?.attempt,
            pendingActivities: d.pendingActivities?.length ?? 0,
            lastEvents: events.slice(-4).map((e) => e.eventType),
            lastTaskFailure: failed?.workflowTaskFailedEventAttributes?.failure?.message?.slice(0, 300),
          };
        } catch (err) {
          return { workflowId, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    );
  } finally {
    await connection.close();
  }
}

function printTable(r: ReturnType<typeof accountFor>) {
  const rows: Array<[string, string | number]> = [
    ['events published (202)', r.figures.accepted],
    ['delivered (receiver saw 2xx)', r.figures.delivered],
    ['dead-lettered as the policy says', r.figures.deadAsPolicy],
    ['lost', r.figures.lost],
    ['unexplained', r.figures.unexplained],
    ['duplicates (same delivery and attempt)', r.figures.duplicates],
    ['  of them during an injected fault', r.figures.duplicatesExplained - r.figures.duplicatesLeaseExpired],
    ['  of them after a lease timeout Temporal recorded', r.figures.duplicatesLeaseExpired],
    ['receiver requests', r.figures.requests],
    ['publish retries (503 / refused)', r.figures.publishRetries],
    ['drain time after the last fault (s)', r.figures.drainSecondsAfterLastFault ?? 'did not drain'],
    ['longest gap fault -> next attempt (s)', r.figures.longestGapAfterFaultSeconds],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\n${rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n')}\n\n`);
}

const accountIdx = process.argv.indexOf('--account');
const run =
  accountIdx >= 0
    ? async () => {
        const file = process.argv[accountIdx + 1]!;
        const raw = readFileSync(file);
        report(deserialize((file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')), [], file);
      }
    : main;
run().catch((err) => {
  console.error(err);
  process.exit(1);
});

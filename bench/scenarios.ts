import { Pool } from 'undici';
import { standardWebhookHeaders } from '../src/signing/standard-webhooks.js';
import type { HeraldTarget } from './herald.js';
import { closedLoop, openLoop } from './load.js';
import { BenchReceiver, nowMs } from './receiver.js';
import { timeline } from './cost.js';
import { readFirstTasks, summarizeFirstTasks } from './first-tasks.js';
import { percentile, round, summary } from './stats.js';
import { readFrontendRequests } from './server-requests.js';
import { countsBetween } from './prom-text.js';

export interface Ctx {
  herald: HeraldTarget;
  receiver: BenchReceiver;
  receiverUrl: string;
  key: string;
  concurrency: number;
  log: (msg: string) => void;
}

const SECRET = `whsec_${Buffer.from('bench-secret-0123456789abcdef012').toString('base64')}`;
let runId = 0;
/** Event ids unique per scenario, so the receiver's first-arrival map never mixes them. */
const ids = (scenario: string) => {
  const tag = `${scenario}_${Date.now().toString(36)}_${runId++}`;
  return (i: number) => `${tag}_${i}`;
};

/** (1) The ceiling: signed POSTs from a plain loop at the same concurrency, no Temporal. */
export async function rawLimit(ctx: Ctx, count: number) {
  const pool = new Pool(ctx.receiverUrl, { connections: ctx.concurrency, keepAliveTimeout: 60_000 });
  const id = ids('raw');
  const t0 = nowMs();
  await closedLoop(count, ctx.concurrency, async (i) => {
    const body = JSON.stringify({ type: 'raw.e', timestamp: new Date().toISOString(), data: { i } });
    const headers = {
      'content-type': 'application/json',
      ...standardWebhookHeaders({
        secrets: [SECRET],
        msgId: id(i),
        timestampSeconds: Math.floor(Date.now() / 1000),
        body,
      }),
      'idempotency-key': id(i),
    };
    const res = await pool.request({ method: 'POST', path: '/raw', headers, body });
    await res.body.dump();
  });
  const seconds = (nowMs() - t0) / 1000;
  await pool.close();
  return { rawLimitRps: round(count / seconds) };
}

async function endpoints(
  ctx: Ctx,
  prefix: string,
  n: number,
  policy?: Record<string, unknown>,
  where: { key?: string; receiverUrl?: string } = {},
) {
  const out: { type: string; path: string; id: string }[] = [];
  for (let i = 0; i < n; i++) {
    const type = `${prefix}.e${i}`;
    const path = `/${prefix}/${i}`;
    const id = await ctx.herald.endpoint(where.key ?? ctx.key, {
      url: `${where.receiverUrl ?? ctx.receiverUrl}${path}`,
      eventTypes: [type],
      preset: 'standard',
      ...(policy ? { policy } : {}),
    });
    out.push({ type, path, id });
  }
  return out;
}

/** (2) Deliveries per second, first publish to last receipt, `events` spread over `n` endpoints. */
export async function throughput(ctx: Ctx, events: number, n: number) {
  const eps = await endpoints(ctx, 'tp', n);
  const id = ids('tp');
  const cpu0 = {
    herald: ctx.herald.heraldCpuSeconds(),
    server: ctx.herald.serverCpuParts(),
    bench: process.cpuUsage(),
  };
  const requests0 = await readFrontendRequests(ctx.herald.serverMetricsUrl, ctx.herald.namespace);
  const t0 = nowMs();
  await closedLoop(events, ctx.concurrency, (i) => ctx.herald.publish(ctx.key, id(i), eps[i % n]!.type));
  const published = nowMs();
  ctx.log(`throughput: ${events} published in ${round((published - t0) / 1000)} s`);
  const arrived = () => {
    let c = 0;
    for (let i = 0; i < events; i++) if (ctx.receiver.firstArrival.has(id(i))) c++;
    return c;
  };
  await ctx.receiver.until(() => arrived() === events, 30 * 60_000, 'every throughput delivery');
  let last = 0;
  for (let i = 0; i < events; i++) last = Math.max(last, ctx.receiver.firstArrival.get(id(i))!);
  const seconds = (last - t0) / 1000;
  // CPU per delivery does not depend on what else runs on the machine, unlike the rate.
  const perDelivery = (s: number) => round((s * 1000) / events, 2);
  const bench = process.cpuUsage(cpu0.bench);
  const server = ctx.herald.serverCpuParts();
  const parts = Object.keys(server);
  const serverSeconds = parts.reduce((sum, k) => sum + (server[k]! - cpu0.server[k]!), 0);
  // Issue 16: the round trips Herald made per delivery, as the frontend counted them (reads of
  // endpoint and tenant workflows are describes and queries; none of them is in a history).
  const requests1 =
    requests0 && (await readFrontendRequests(ctx.herald.serverMetricsUrl, ctx.herald.namespace));
  const requests = requests0 && requests1 ? countsBetween(requests0, requests1) : undefined;
  if (requests)
    ctx.log(
      `throughput: frontend requests per delivery ${JSON.stringify(Object.fromEntries(Object.entries(requests).map(([op, c]) => [op, round(c / events, 2)])))}`,
    );
  return {
    cpuMsPerDeliveryHerald: perDelivery(ctx.herald.heraldCpuSeconds() - cpu0.herald),
    // The Temporal service: the dev server; on the stack, the server and PostgreSQL (both below).
    cpuMsPerDeliveryServer: perDelivery(serverSeconds),
    ...(parts.length > 1
      ? Object.fromEntries(
          parts.map((k) => [
            `cpuMsPerDelivery${k[0]!.toUpperCase()}${k.slice(1)}`,
            perDelivery(server[k]! - cpu0.server[k]!),
          ]),
        )
      : {}),
    cpuMsPerDeliveryBench: perDelivery((bench.user + bench.system) / 1e6),
    throughputDps: round(events / seconds),
    throughputSeconds: round(seconds),
    publishRps: round(events / ((published - t0) / 1000)),
    ...(requests
      ? {
          describesPerDelivery: round((requests.DescribeWorkflowExecution ?? 0) / events, 2),
          queriesPerDelivery: round((requests.QueryWorkflow ?? 0) / events, 2),
        }
      : {}),
  };
}

/** Open-loop publishing to one endpoint; latency = receipt of attempt 1 minus the 202. */
async function measureLatency(ctx: Ctx, rate: number, seconds: number, prefix: string) {
  const [ep] = await endpoints(ctx, prefix, 1);
  const id = ids(prefix);
  const acked = new Map<number, number>();
  const ackMs: number[] = [];
  await openLoop(rate, seconds, async (i) => {
    const sent = nowMs();
    acked.set(i, await ctx.herald.publish(ctx.key, id(i), ep!.type));
    ackMs.push(acked.get(i)! - sent);
  });
  const total = acked.size;
  await ctx.receiver.until(
    () => [...acked.keys()].every((i) => ctx.receiver.firstArrival.has(id(i))),
    10 * 60_000,
    `${prefix} deliveries`,
  );
  // The 202 comes after the delivery is started, so a fast worker can beat it: that is 0 wait.
  const lat = [...acked].map(([i, at]) => Math.max(0, ctx.receiver.firstArrival.get(id(i))! - at));
  return { total, latency: summary(lat), ack: summary(ackMs) };
}

export async function latency(ctx: Ctx, rate: number, seconds: number) {
  const r = await measureLatency(ctx, rate, seconds, 'lat');
  return {
    latencyP50Ms: r.latency.p50,
    latencyP95Ms: r.latency.p95,
    latencyP99Ms: r.latency.p99,
    latencyEvents: r.total,
    publishAckP99Ms: r.ack.p99,
  };
}

/** (4) R-SMENGO-FAIR: one endpoint gets a burst while 9 others get 1 event a second each. */
export async function fairness(ctx: Ctx, burst: number, quietCount: number) {
  const [busy] = await endpoints(ctx, 'burst', 1);
  const quiet = await endpoints(ctx, 'quiet', quietCount);
  const bid = ids('burst');
  const qid = ids('quiet');
  const t0 = nowMs();
  let burstDone = false;
  const burstArrived = () => {
    for (let i = 0; i < burst; i++) if (!ctx.receiver.firstArrival.has(bid(i))) return false;
    return true;
  };
  // `sent`: when the publish was made. A change that holds publishes before their 202 (issue
  // 16's intake pacer, session 19) moves the wait out of the latency from the 202, so the
  // latency from the publish is reported beside it.
  const quietAcks: Array<{ id: string; at: number; sent: number }> = [];
  const quietLoop = (async () => {
    for (let tick = 0; !burstDone; tick++) {
      const due = t0 + tick * 1000;
      const wait = due - nowMs();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await Promise.all(
        quiet.map(async (ep, q) => {
          const eventId = qid(tick * quietCount + q);
          const sent = nowMs();
          quietAcks.push({ id: eventId, at: await ctx.herald.publish(ctx.key, eventId, ep.type), sent });
        }),
      );
    }
  })();
  await closedLoop(burst, ctx.concurrency, (i) => ctx.herald.publish(ctx.key, bid(i), busy!.type));
  const publishedAt = nowMs();
  ctx.log(`fairness: burst of ${burst} published in ${round((publishedAt - t0) / 1000)} s`);
  await ctx.receiver.until(burstArrived, 30 * 60_000, 'the burst');
  burstDone = true;
  await quietLoop;
  await ctx.receiver.until(
    () => quietAcks.every((q) => ctx.receiver.firstArrival.has(q.id)),
    120_000,
    'quiet deliveries',
  );
  let last = 0;
  for (let i = 0; i < burst; i++) last = Math.max(last, ctx.receiver.firstArrival.get(bid(i))!);
  const arrivedAfter = (id: string, from: number) => Math.max(0, ctx.receiver.firstArrival.get(id)! - from);
  const latOf = (q: { id: string; at: number }) => arrivedAfter(q.id, q.at);
  const fromPublish = (q: { id: string; sent: number }) => arrivedAfter(q.id, q.sent);
  const lat = quietAcks.map(latOf);
  // Where the tail is: quiet events acknowledged while the burst's publishes were still
  // arriving, against those after; and the slowest few, to read their histories.
  const during = quietAcks.filter((q) => q.at < publishedAt).map(latOf);
  const after = quietAcks.filter((q) => q.at >= publishedAt).map(latOf);
  const slowest = [...quietAcks].sort((a, b) => latOf(b) - latOf(a)).slice(0, 5);
  for (const q of slowest)
    ctx.log(
      `fairness: slow quiet ${q.id} (delivery ${ctx.receiver.firstDelivery.get(q.id)}): acknowledged ${round((q.at - t0) / 1000)} s into the burst, arrived ${round(latOf(q))} ms later`,
    );
  return {
    fairnessQuietP50Ms: round(percentile(lat, 50)),
    fairnessQuietP99Ms: round(percentile(lat, 99)),
    fairnessQuietEvents: lat.length,
    fairnessQuietP99WhilePublishingMs: round(percentile(during, 99)),
    fairnessQuietP99AfterPublishingMs: round(percentile(after, 99)),
    fairnessQuietP99FromPublishMs: round(percentile(quietAcks.map(fromPublish), 99)),
    fairnessQuietP99FromPublishWhilePublishingMs: round(
      percentile(quietAcks.filter((q) => q.at < publishedAt).map(fromPublish), 99),
    ),
    burstSeconds: round((last - t0) / 1000),
  };
}

/**
 * The `n` slowest of `acks` (publish index -> acknowledged at), first-attempt arrival from
 * the acknowledgement: [index, s after `t0` it was acknowledged, ms to arrive], slowest first.
 */
function slowestPublished(
  ctx: Ctx,
  acks: Map<number, number>,
  id: (i: number) => string,
  t0: number,
  n: number,
) {
  return [...acks]
    .map(
      ([i, at]) =>
        [i, round((at - t0) / 1000), Math.round(ctx.receiver.firstArrival.get(id(i))! - at)] as const,
    )
    .sort((a, b) => b[2] - a[2])
    .slice(0, n);
}

/** (5) Many deliveries asleep in backoff while (3) runs again; memory and disk at the end. */
export async function backlog(
  ctx: Ctx,
  sleeping: number,
  rate: number,
  seconds: number,
  sample: () => { workerRssMb: number; serverRssMb: number; sqliteMb: number },
) {
  const [ep] = await endpoints(ctx, 'backlog', 1, { maxAttempts: 3, retryDelays: [6 * 3600] });
  ctx.receiver.setMode(ep!.path, { status: 503 });
  const id = ids('backlog');
  const t0 = nowMs();
  await closedLoop(sleeping, ctx.concurrency, (i) => ctx.herald.publish(ctx.key, id(i), ep!.type));
  await ctx.receiver.until(
    () => {
      for (let i = 0; i < sleeping; i++) if (!ctx.receiver.firstArrival.has(id(i))) return false;
      return true;
    },
    60 * 60_000,
    'every backlog delivery to fail once',
  );
  ctx.log(`backlog: ${sleeping} deliveries asleep after ${round((nowMs() - t0) / 1000)} s`);
  let peak = sample();
  const sampler = setInterval(() => {
    const s = sample();
    peak = {
      workerRssMb: Math.max(peak.workerRssMb, s.workerRssMb),
      serverRssMb: Math.max(peak.serverRssMb, s.serverRssMb),
      sqliteMb: Math.max(peak.sqliteMb, s.sqliteMb),
    };
  }, 1000);
  const r = await measureLatency(ctx, rate, seconds, 'backlat');
  clearInterval(sampler);
  const end = sample();
  return {
    backlogDeliveries: sleeping,
    backlogWorkerRssMb: round(Math.max(peak.workerRssMb, end.workerRssMb)),
    backlogServerRssMb: round(Math.max(peak.serverRssMb, end.serverRssMb)),
    backlogSqliteMb: round(Math.max(peak.sqliteMb, end.sqliteMb)),
    backlogLatencyP50Ms: r.latency.p50,
    backlogLatencyP99Ms: r.latency.p99,
  };
}

/** (6) An endpoint fails with `events` queued on a short schedule, then recovers. */
export async function recovery(ctx: Ctx, events: number, failSeconds: number) {
  const delays = [5, 10, 20, 30];
  const maxAttempts = 20;
  const [ep] = await endpoints(ctx, 'rec', 1, { maxAttempts, retryDelays: delays });
  ctx.receiver.setMode(ep!.path, { status: 503 });
  const id = ids('rec');
  await closedLoop(events, ctx.concurrency, (i) => ctx.herald.publish(ctx.key, id(i), ep!.type));
  await ctx.receiver.until(
    () => {
      for (let i = 0; i < events; i++) if (!ctx.receiver.firstArrival.has(id(i))) return false;
      return true;
    },
    30 * 60_000,
    'every recovery delivery to fail once',
  );
  await new Promise((r) => setTimeout(r, failSeconds * 1000));
  const mine = () => [...(ctx.receiver.deliveriesByPath.get(ep!.path) ?? [])];
  const healedAt = nowMs();
  ctx.receiver.setMode(ep!.path, { status: 200 });
  await ctx.receiver.until(
    () => {
      const ds = mine();
      return ds.length === events && ds.every((d) => (ctx.receiver.okReceipts.get(d) ?? 0) >= 1);
    },
    30 * 60_000,
    'every recovery delivery to succeed',
  );
  const seconds = (nowMs() - healedAt) / 1000;
  const ds = mine();
  const duplicates = ds.filter((d) => (ctx.receiver.okReceipts.get(d) ?? 0) > 1).length;
  const overBudget = ds.filter((d) => (ctx.receiver.attemptsByDelivery.get(d) ?? 0) > maxAttempts).length;
  // The longest wait the schedule allows once the receiver is healthy: 30 s x jitter 1.1.
  return {
    recoverySeconds: round(seconds),
    recoveryScheduleBoundSeconds: round(Math.max(...delays) * 1.1),
    recoveryDuplicates: duplicates,
    recoveryOverBudget: overBudget,
    recoveryAttemptsMax: Math.max(...ds.map((d) => ctx.receiver.attemptsByDelivery.get(d) ?? 0)),
  };
}

/**
 * (7) Issue 16: one endpoint whose receiver answers after `slowDelayMs` gets `slowEvents` at
 * once, while `fastCount` endpoints get `rate` events a second each for `seconds`. The fast
 * endpoints' first attempts (202 -> first receipt) must not wait behind the slow one's sends.
 * The slow endpoint has a receiver (an origin) of its own, as a slow host would.
 */
export async function slowNeighbour(
  ctx: Ctx,
  o: {
    slowEvents: number;
    slowDelayMs: number;
    fastCount: number;
    rate: number;
    seconds: number;
    /** Also read every delivery's history: where first tasks waited, and the counts (first-tasks.ts). */
    histories?: boolean;
  },
) {
  const slowReceiver = new BenchReceiver();
  const slowUrl = await slowReceiver.start();
  try {
    const [slow] = await endpoints(ctx, 'slow', 1, undefined, { receiverUrl: slowUrl });
    slowReceiver.setMode(slow!.path, { status: 200, delayMs: o.slowDelayMs });
    const fast = await endpoints(ctx, 'fast', o.fastCount);
    const sid = ids('slow');
    const fid = ids('fast');
    const t0 = nowMs();
    const acks = new Map<number, number>();
    const sent = new Map<number, number>();
    const slowBurst = closedLoop(o.slowEvents, ctx.concurrency, (i) =>
      ctx.herald.publish(ctx.key, sid(i), slow!.type),
    ).then(() => ctx.log(`slow: ${o.slowEvents} slow events published in ${round((nowMs() - t0) / 1000)} s`));
    const fastLoop = openLoop(o.rate * o.fastCount, o.seconds, async (i) => {
      sent.set(i, nowMs());
      acks.set(i, await ctx.herald.publish(ctx.key, fid(i), fast[i % o.fastCount]!.type));
    });
    await Promise.all([slowBurst, fastLoop]);
    const slowSeenDuringRun = slowReceiver.requests;
    const slowMaxInFlight = slowReceiver.maxInFlight;
    await ctx.receiver.until(
      () => [...acks.keys()].every((i) => ctx.receiver.firstArrival.has(fid(i))),
      10 * 60_000,
      'the fast endpoints deliveries',
    );
    const arrivedAfter = (i: number, from: number) =>
      Math.max(0, ctx.receiver.firstArrival.get(fid(i))! - from);
    const s = summary([...acks].map(([i, at]) => arrivedAfter(i, at)));
    // From the publish: any wait before the 202 included (session 19).
    const e2e = summary([...acks.keys()].map((i) => arrivedAfter(i, sent.get(i)!)));
    // When in the run the slowest fast deliveries were published ([s into the run, ms]), and
    // where the three slowest spent their time (their histories).
    const slowest = slowestPublished(ctx, acks, fid, t0, 40);
    ctx.log(`slow: slowest fast: ${JSON.stringify(slowest.map(([, sec, ms]) => [sec, ms]))}`);
    for (const [i, sec, ms] of slowest.slice(0, 3)) {
      const d = ctx.receiver.firstDelivery.get(fid(i));
      if (!d) continue;
      const events = await timeline(ctx.herald.temporalAddress, ctx.herald.namespace, d, acks.get(i)!);
      ctx.log(`slow: fast ${d} acked ${sec} s, arrived +${ms} ms: ${JSON.stringify(events)}`);
    }
    // Let the slow endpoint drain quickly, so its backlog does not weigh on the next scenario:
    // from now on it answers at once (requests already waiting still take their 10 s).
    const drainFrom = nowMs();
    slowReceiver.setMode(slow!.path, { status: 200 });
    const slowDone = () => {
      for (let i = 0; i < o.slowEvents; i++) if (!slowReceiver.firstArrival.has(sid(i))) return false;
      return true;
    };
    const drained = await slowReceiver.until(slowDone, 10 * 60_000, 'the slow endpoint').then(
      () => true,
      () => false,
    );
    await new Promise((r) => setTimeout(r, o.slowDelayMs + 1000));
    const histories = o.histories
      ? await firstTaskSummaries(ctx, t0, {
          fast: [...acks.keys()].map((i) => ctx.receiver.firstDelivery.get(fid(i))),
          slow: Array.from({ length: o.slowEvents }, (_, i) => slowReceiver.firstDelivery.get(sid(i))),
        })
      : {};
    return {
      ...histories,
      slowNeighbourFastP50Ms: s.p50,
      slowNeighbourFastP95Ms: s.p95,
      slowNeighbourFastP99Ms: s.p99,
      slowNeighbourFastMaxMs: s.max,
      slowNeighbourFastP50FromPublishMs: e2e.p50,
      slowNeighbourFastP99FromPublishMs: e2e.p99,
      slowNeighbourFastEvents: s.n,
      // How many sends the slow endpoint held at once, and how many it got while the fast ran.
      slowNeighbourSlowMaxInFlight: slowMaxInFlight,
      slowNeighbourSlowRequestsDuringRun: slowSeenDuringRun,
      slowNeighbourSlowDrainSeconds: drained ? round((nowMs() - drainFrom) / 1000) : NaN,
    };
  } finally {
    await slowReceiver.close();
  }
}

/** (7) with `--histories`: per group of deliveries, where first tasks waited and what each cost. */
async function firstTaskSummaries(ctx: Ctx, t0: number, groups: Record<'fast' | 'slow', (string | undefined)[]>) {
  const out: Record<string, ReturnType<typeof summarizeFirstTasks>> = {};
  for (const [name, ids] of Object.entries(groups)) {
    const known = ids.filter((id): id is string => id !== undefined);
    const rows = await readFirstTasks(ctx.herald.temporalAddress, ctx.herald.namespace, known);
    out[name] = summarizeFirstTasks(rows, t0);
    ctx.log(`slow: ${name} deliveries' first tasks: ${JSON.stringify(out[name])}`);
  }
  return { slowNeighbourFirstTasks: out };
}

/** Most receipts of `arrivals` (ms timestamps) inside any one-second window. */
export function maxInOneSecond(arrivals: number[]): number {
  const t = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  for (let lo = 0, hi = 0; hi < t.length; hi++) {
    while (t[hi]! - t[lo]! >= 1000) lo++;
    most = Math.max(most, hi - lo + 1);
  }
  return most;
}

/**
 * (9) Issue 17's "no spill-over": `fastCount` endpoints with no options get `rate` events a
 * second each for `seconds`, five times: alone; beside the same burst to an endpoint with no
 * options (the control); beside a rate-limited endpoint given a burst at once (its turns
 * reserved at publish, each delivery started just before its own); beside an ordered endpoint
 * given a burst (all but its head wait as `waiting_for_previous`); beside an endpoint whose
 * receiver answers after `slowDelayMs`, given `slowEvents` at once (it may hold only its share
 * of the send slots). The fast endpoints' first-attempt p99 must not grow with them.
 */
export async function spillOver(
  ctx: Ctx,
  o: {
    fastCount: number;
    rate: number;
    seconds: number;
    limitedEvents: number;
    perSecond: number;
    orderedEvents: number;
    slowEvents: number;
    slowDelayMs: number;
  },
) {
  const fast = await endpoints(ctx, 'spill', o.fastCount);
  const limitedEndpoint = async (prefix: string, options: Record<string, unknown>) => {
    const type = `${prefix}.e0`;
    await ctx.herald.endpoint(ctx.key, {
      url: `${ctx.receiverUrl}/${prefix}/0`,
      eventTypes: [type],
      preset: 'standard',
      ...options,
    });
    return type;
  };
  type Limited = { events: number; publish: (eventId: (i: number) => string) => Promise<unknown> };
  const phase = async (name: string, limited?: Limited) => {
    const fid = ids(`spill-${name}`);
    const lid = ids(`spill-${name}-limited`);
    const acks = new Map<number, number>();
    const t0 = nowMs();
    await Promise.all([
      limited?.publish(lid),
      openLoop(o.rate * o.fastCount, o.seconds, async (i) => {
        acks.set(i, await ctx.herald.publish(ctx.key, fid(i), fast[i % o.fastCount]!.type));
      }),
    ]);
    await ctx.receiver.until(
      () => [...acks.keys()].every((i) => ctx.receiver.firstArrival.has(fid(i))),
      10 * 60_000,
      `the fast endpoints' deliveries (${name})`,
    );
    const fastLat = summary(
      [...acks].map(([i, at]) => Math.max(0, ctx.receiver.firstArrival.get(fid(i))! - at)),
    );
    // When in the phase the slowest fast deliveries were published ([s into the phase, ms]):
    // a burst's cost shows at its start, a limit's over its whole length.
    ctx.log(
      `spill ${name} slowest: ${JSON.stringify(slowestPublished(ctx, acks, fid, t0, 10).map(([, sec, ms]) => [sec, ms]))}`,
    );
    if (!limited) return { fast: fastLat, seconds: NaN, maxInOneSecond: NaN, inOrder: NaN };
    const arrivals = () =>
      Array.from({ length: limited.events }, (_, i) => ctx.receiver.firstArrival.get(lid(i)));
    await ctx.receiver.until(
      () => arrivals().every((a) => a !== undefined),
      15 * 60_000,
      `the ${name} endpoint`,
    );
    const at = arrivals() as number[];
    const stats = {
      fast: fastLat,
      seconds: round((Math.max(...at) - t0) / 1000),
      maxInOneSecond: maxInOneSecond(at),
      inOrder: at.every((a, i) => i === 0 || a >= at[i - 1]!) ? 1 : 0,
    };
    ctx.log(`spill ${name}: ${JSON.stringify(stats)}`);
    return stats;
  };
  const alone = await phase('alone');
  ctx.log(`spill alone: ${JSON.stringify(alone.fast)}`);
  // The control: the same burst to an endpoint with no options, so what the limit itself
  // adds is told apart from what any burst of publishes costs the others.
  const plainType = await limitedEndpoint('spillplain', {});
  const plain = await phase('plain-burst', {
    events: o.limitedEvents,
    publish: (id) =>
      closedLoop(o.limitedEvents, ctx.concurrency, (i) => ctx.herald.publish(ctx.key, id(i), plainType)),
  });
  const rateType = await limitedEndpoint('spillrl', { rateLimit: { perSecond: o.perSecond } });
  const rate = await phase('rate-limited', {
    events: o.limitedEvents,
    publish: (id) =>
      closedLoop(o.limitedEvents, ctx.concurrency, (i) => ctx.herald.publish(ctx.key, id(i), rateType)),
  });
  const orderedType = await limitedEndpoint('spillfifo', { ordering: 'fifo' });
  const ordered = await phase('ordered', {
    events: o.orderedEvents,
    // One publish after the other, so the order accepted is the index order.
    publish: async (id) => {
      for (let i = 0; i < o.orderedEvents; i++) await ctx.herald.publish(ctx.key, id(i), orderedType);
    },
  });
  // A slow endpoint (issue 17's "default share"): its receiver answers after slowDelayMs, and
  // it gets slowEvents at once. Without a share it held every send slot and the others waited.
  const slowType = await limitedEndpoint('spillslow', {});
  ctx.receiver.setMode('/spillslow/0', { status: 200, delayMs: o.slowDelayMs });
  const slow = await phase('slow', {
    events: o.slowEvents,
    publish: (id) =>
      closedLoop(o.slowEvents, ctx.concurrency, (i) => ctx.herald.publish(ctx.key, id(i), slowType)),
  });
  // Its requests still open are answered in their time; none weighs on what runs next.
  ctx.receiver.setMode('/spillslow/0', { status: 200 });
  await new Promise((r) => setTimeout(r, o.slowDelayMs + 1000));
  return {
    spillFastAloneP50Ms: alone.fast.p50,
    spillFastAloneP99Ms: alone.fast.p99,
    spillFastBesidePlainBurstP50Ms: plain.fast.p50,
    spillFastBesidePlainBurstP99Ms: plain.fast.p99,
    spillFastBesideRateLimitedP50Ms: rate.fast.p50,
    spillFastBesideRateLimitedP99Ms: rate.fast.p99,
    spillRateLimitedSeconds: rate.seconds,
    spillRateLimitedMaxInOneSecond: rate.maxInOneSecond,
    spillFastBesideOrderedP50Ms: ordered.fast.p50,
    spillFastBesideOrderedP99Ms: ordered.fast.p99,
    spillOrderedSeconds: ordered.seconds,
    spillOrderedInOrder: ordered.inOrder,
    spillFastBesideSlowP50Ms: slow.fast.p50,
    spillFastBesideSlowP99Ms: slow.fast.p99,
    spillSlowSeconds: slow.seconds,
    spillFastEventsPerPhase: alone.fast.n,
  };
}

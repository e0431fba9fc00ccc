// `npm run bench`: Herald's embedded default against the raw-HTTP limit (issue 6).
// Flags set every scenario size; `--quick` shrinks them all to a few minutes' run.
import { execFileSync } from 'node:child_process';
import { cpus, totalmem, platform, release } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cost } from './cost.js';
import { BenchHerald, StackHerald, type HeraldTarget } from './herald.js';
import { freePort, freePortWith } from './ports.js';
import { BenchReceiver } from './receiver.js';
import {
  backlog,
  fairness,
  latency,
  rawLimit,
  recovery,
  slowNeighbour,
  spillOver,
  throughput,
  type Ctx,
} from './scenarios.js';

const FULL = {
  concurrency: 64,
  'raw-requests': 20000,
  'tp-events': 20000,
  'tp-endpoints': 10,
  'lat-rate': 50,
  'lat-seconds': 60,
  burst: 10000,
  quiet: 9,
  backlog: 50000,
  'rec-events': 5000,
  'rec-fail-seconds': 30,
  // (7) slow endpoint: one endpoint answering after 10 s gets 500 at once, 9 others 5/s for 60 s.
  'slow-events': 500,
  'slow-delay-ms': 10000,
  'slow-fast': 9,
  'slow-rate': 5,
  'slow-seconds': 60,
  // (8) cost: 200 deliveries, one endpoint each event (over 4 endpoints); open ones 60 s later.
  'cost-events': 200,
  'cost-endpoints': 4,
  'cost-open-after': 60,
  // (9) no spill-over: 9 endpoints 1/s each for 60 s, alone, beside a 5/s endpoint given 200
  // at once, beside an ordered endpoint given 150, and beside one answering after 10 s given 300.
  'spill-fast': 9,
  'spill-rate': 1,
  'spill-seconds': 60,
  'spill-limited-events': 200,
  'spill-per-second': 5,
  'spill-ordered-events': 150,
  'spill-slow-events': 300,
};
const QUICK: typeof FULL = {
  ...FULL,
  'raw-requests': 5000,
  'tp-events': 2000,
  'lat-seconds': 15,
  burst: 1000,
  backlog: 2000,
  'rec-events': 500,
  'rec-fail-seconds': 10,
  'slow-events': 200,
  'slow-seconds': 20,
  'cost-open-after': 20,
  'spill-seconds': 20,
  'spill-limited-events': 60,
  'spill-ordered-events': 40,
  'spill-slow-events': 60,
};
const SCENARIOS = [
  'raw',
  'throughput',
  'latency',
  'fairness',
  'backlog',
  'recovery',
  'slow',
  'cost',
  'spill',
] as const;

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string' },
    // Continue a run that stopped part way: its results and command are kept, and the
    // scenarios named by --only add to them.
    merge: { type: 'string' },
    // Issue 20's A/B: `--metrics off` runs Herald with HERALD_METRICS_PORT=0 (no listener, no
    // workflow metrics recorded); on, the listener takes a free port.
    metrics: { type: 'string', default: 'on' },
    // Issue 16's A/B: Herald from another checkout (e.g. a worktree of the baseline commit),
    // started as that checkout's `npm start` starts it, measured by this harness.
    'herald-root': { type: 'string' },
    // Issue 19: against the production-shaped stack (Temporal on PostgreSQL, two workers,
    // one API; scripts/stack/stack.ts) instead of the embedded default.
    stack: { type: 'boolean', default: false },
    // Issue 16 (4): publish without event ids, so Herald names each event (no record workflow).
    'herald-names-events': { type: 'boolean', default: false },
    // An A/B of one setting: `--herald-env=NAME=value`, repeatable, added to Herald's environment.
    'herald-env': { type: 'string', multiple: true, default: [] },
    // (7): read every delivery's history after the run: where the first tasks waited, and
    // what a fast and a slow delivery cost (bench/first-tasks.ts). About 20 s more.
    histories: { type: 'boolean', default: false },
    ...Object.fromEntries(Object.keys(FULL).map((k) => [k, { type: 'string' as const }])),
  },
});
const base = values.quick ? QUICK : FULL;
const size = Object.fromEntries(
  Object.entries(base).map(([k, v]) => [
    k,
    values[k as keyof typeof values] !== undefined ? Number(values[k as keyof typeof values]) : v,
  ]),
) as typeof FULL;
const only = new Set((values.only ?? SCENARIOS.join(',')).split(','));
const out = values.out ?? (values.quick ? 'bench/results.quick.json' : 'bench/results.json');

const log = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function main() {
  const receiver = new BenchReceiver();
  const receiverUrl = await receiver.start();
  if (values.stack && values['herald-root'])
    throw new Error('--stack runs this checkout; --herald-root is for the embedded default');
  const ports = { api: await freePort(), temporal: await freePortWith([10, 11]), ui: await freePort() };
  // The metrics port and the SDK exporter's (+1) must miss the dev server's derived ports (+10, +11).
  let metricsPort = 0;
  while (values.metrics !== 'off' && !metricsPort) {
    const p = await freePort();
    const taken = [ports.api, ports.ui, ...Array.from({ length: 12 }, (_, i) => ports.temporal + i)];
    if (!taken.includes(p) && !taken.includes(p + 1)) metricsPort = p;
  }
  const herald: HeraldTarget = values.stack
    ? new StackHerald(size.concurrency, log)
    : new BenchHerald(
        ports,
        {
          HERALD_METRICS_PORT: String(metricsPort),
          ...Object.fromEntries(
            values['herald-env'].map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
          ),
        },
        size.concurrency,
        values['herald-root'],
      );
  herald.heraldNamesEvents = values['herald-names-events'];
  log(`starting ${herald.label}`);
  const startedAt = Date.now();
  await herald.start();
  const startSeconds = (Date.now() - startedAt) / 1000;
  log(`${herald.label} up in ${startSeconds.toFixed(1)} s`);
  const earlier = values.merge
    ? (JSON.parse(readFileSync(values.merge, 'utf8')) as Record<string, unknown>)
    : undefined;
  const results: Record<string, unknown> = {};
  if (earlier) for (const [k, v] of Object.entries(earlier)) if (typeof v === 'number') results[k] = v;
  const errors: Record<string, string> = {};
  const meta = () => ({
    target: herald.label,
    heraldRoot: herald instanceof BenchHerald ? herald.root : undefined,
    heraldCommit: commitOf(herald instanceof BenchHerald ? herald.root : '.'),
    startSeconds: Number(startSeconds.toFixed(1)),
    heraldNamesEvents: herald.heraldNamesEvents,
    sizes: size,
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      os: `${platform()} ${release()}`,
      node: process.version,
    },
    command: [
      ...(earlier ? [String(earlier.command ?? 'an earlier run')] : []),
      `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    ].join(' && then '),
  });
  try {
    const key = await herald.tenant('bench');
    const ctx: Ctx = { herald, receiver, receiverUrl, key, concurrency: size.concurrency, log };
    const step = async (name: (typeof SCENARIOS)[number], fn: () => Promise<Record<string, unknown>>) => {
      if (!only.has(name)) return;
      log(`${name}...`);
      const t = Date.now();
      try {
        Object.assign(results, await fn());
        log(`${name} done in ${((Date.now() - t) / 1000).toFixed(0)} s`);
      } catch (err) {
        // One scenario failing must not throw away the others' numbers.
        errors[name] = String(err instanceof Error ? err.message : err);
        log(`${name} FAILED: ${errors[name]}`);
        // Why, when Herald itself went away or said so (a bench run's log is not kept otherwise).
        const problems = herald.problems();
        if (problems.length > 0) {
          errors[name] += `; herald: ${problems.join(' | ')}`;
          log(`${name}: herald said:\n${problems.join('\n')}`);
        }
      }
      // Written after every scenario, with the sizes and command, so a run stopped part way
      // still leaves a complete record of what it measured.
      writeFileSync(
        out,
        JSON.stringify(
          { ...results, publishRetriedAfter503: herald.retried503, errors, partial: true, ...meta() },
          null,
          2,
        ) + '\n',
      );
    };
    await step('raw', () => rawLimit(ctx, size['raw-requests']));
    await step('throughput', () => throughput(ctx, size['tp-events'], size['tp-endpoints']));
    await step('latency', () => latency(ctx, size['lat-rate'], size['lat-seconds']));
    await step('fairness', () => fairness(ctx, size.burst, size.quiet));
    await step('backlog', () =>
      backlog(ctx, size.backlog, size['lat-rate'], size['lat-seconds'], () => herald.memorySample()),
    );
    await step('recovery', () => recovery(ctx, size['rec-events'], size['rec-fail-seconds']));
    await step('slow', () =>
      slowNeighbour(ctx, {
        slowEvents: size['slow-events'],
        slowDelayMs: size['slow-delay-ms'],
        fastCount: size['slow-fast'],
        rate: size['slow-rate'],
        seconds: size['slow-seconds'],
        histories: values.histories,
      }),
    );
    await step('cost', () => cost(ctx, size['cost-events'], size['cost-endpoints'], size['cost-open-after']));
    await step('spill', () =>
      spillOver(ctx, {
        fastCount: size['spill-fast'],
        rate: size['spill-rate'],
        seconds: size['spill-seconds'],
        limitedEvents: size['spill-limited-events'],
        perSecond: size['spill-per-second'],
        orderedEvents: size['spill-ordered-events'],
        slowEvents: size['spill-slow-events'],
        slowDelayMs: size['slow-delay-ms'],
      }),
    );
  } finally {
    // BENCH_HOLD_SECONDS: keep the dev server up after the run, to read histories with
    // `temporal workflow show` (its address is in the log).
    const hold = Number(process.env.BENCH_HOLD_SECONDS ?? 0);
    if (hold > 0) {
      log(`holding for ${hold} s; Temporal at ${herald.temporalAddress}`);
      await new Promise((r) => setTimeout(r, hold * 1000));
    }
    await herald.stop();
    await receiver.close();
  }

  results.publishRetriedAfter503 = herald.retried503;
  if (typeof results.rawLimitRps === 'number' && typeof results.throughputDps === 'number')
    results.throughputRatio = Number((results.throughputDps / results.rawLimitRps).toFixed(3));
  const report = {
    ...results,
    ...(Object.keys(errors).length ? { errors } : {}),
    ...meta(),
    at: new Date().toISOString(),
  };
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  console.table(Object.fromEntries(Object.entries(results).map(([k, v]) => [k, { value: v }])));
  log(`wrote ${out}`);
  if (Object.keys(errors).length) process.exitCode = 1;
}

function commitOf(dir: string): string | undefined {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

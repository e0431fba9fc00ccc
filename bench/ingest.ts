// Ingest under load (issue 7, R-RH-INBOUND): how fast POST /in/{sourceId} acknowledges
// at a fixed arrival rate. Starts `npm start`'s embedded Herald (dev server on SQLite,
// worker, API) in a fresh temp data dir, creates a tenant, a source and one loopback
// destination, then sends an open-loop stream of requests and reports the time from each
// request's scheduled send to its 202 (durably accepted: every forward started in Temporal).
//
//   npm run bench:ingest                         # 200 req/s for 30 s, unsigned
//   npm run bench:ingest -- --rate 200 --seconds 30 --signed
//
// Self-contained on purpose: nothing here is shared with the other bench/ scripts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { Pool } from 'undici';
import { freePort, freePortWith } from './ports.js';
import { startNodeFlags } from '../scripts/npm-script-flags.js';
import { killGroupOnExit } from './kill-on-exit.js';

const OPERATOR_KEY = 'op_bench_ingest_0123456789abcdef';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    signed: { type: 'boolean', default: false },
    bytes: { type: 'string', default: '1024' },
    /** How long to wait after the run for the worker to forward everything acknowledged. */
    'drain-seconds': { type: 'string', default: '60' },
  },
});
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const WARMUP_SECONDS = Number(args.warmup);
const BODY_BYTES = Number(args.bytes);
const DRAIN_SECONDS = Number(args['drain-seconds']);
/** An acknowledgement slower than this counts as an error, so a stall cannot hang the run. */
const REQUEST_TIMEOUT_MS = 30_000;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function startHerald(dataDir: string, ports: { api: number; temporal: number; ui: number }) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HERALD_DATA_DIR: dataDir,
    HERALD_API_PORT: String(ports.api),
    HERALD_TEMPORAL_PORT: String(ports.temporal),
    HERALD_TEMPORAL_UI_PORT: String(ports.ui),
    HERALD_OPERATOR_KEY: OPERATOR_KEY,
  };
  delete env.TEMPORAL_ADDRESS;
  const child: ChildProcess = spawn(process.execPath, [...startNodeFlags(), '--import', 'tsx', 'src/main.ts'], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-20_000);
    if (process.env.BENCH_VERBOSE) process.stderr.write(d);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  killGroupOnExit(child);
  const apiUrl = `http://127.0.0.1:${ports.api}`;
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`herald exited during start-up:\n${output}`);
    if (
      output.includes('worker polling') &&
      (await fetch(`${apiUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    )
      return {
        apiUrl,
        output: () => output,
        async stop() {
          if (child.exitCode !== null || !child.pid) return;
          const exited = new Promise((r) => child.once('exit', r));
          process.kill(-child.pid, 'SIGINT');
          const done = await Promise.race([exited.then(() => true), delay(30_000).then(() => false)]);
          if (!done) process.kill(-child.pid, 'SIGKILL');
        },
      };
    await delay(250);
  }
  throw new Error(`herald did not come up:\n${output}`);
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-ingest-'));
  const [api, temporal, ui] = [await freePort(), await freePortWith([10, 11]), await freePort()];

  // The destination: a loopback receiver that answers 200 at once and counts forwards.
  let forwarded = 0;
  const dest = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      forwarded++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => dest.listen(0, '127.0.0.1', r));
  const destPort = (dest.address() as { port: number }).port;

  console.error(`[bench:ingest] starting Herald (data in ${dataDir})`);
  const herald = await startHerald(dataDir, { api, temporal, ui });
  const pool = new Pool(herald.apiUrl, { connections: 256, pipelining: 1, keepAliveTimeout: 60_000 });
  try {
    const json = async (path: string, body: unknown, key: string) => {
      const r = await fetch(`${herald.apiUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      return r.json() as Promise<Record<string, unknown>>;
    };
    const { apiKey } = (await json('/v1/admin/tenants', { name: 'Bench' }, OPERATOR_KEY)) as {
      apiKey: string;
    };
    const created = (await json(
      '/v1/sources',
      {
        name: 'bench',
        verification: args.signed ? { kind: 'standard_webhooks' } : { kind: 'none' },
        destinations: [{ url: `http://127.0.0.1:${destPort}/hook` }],
      },
      apiKey,
    )) as { source: { sourceId: string; ingestUrl: string }; secret?: string };
    // Issue 13.7: the ingest URL holds the ingest id, which is not the public sourceId.
    const path = new URL(created.source.ingestUrl).pathname;
    // Issue 13.8: a repeated webhook-id is answered as a duplicate, so warm-up and
    // measurement each send messages of their own.
    let messages = 0;
    const signer = created.secret ? new Webhook(created.secret) : undefined;
    const payload = JSON.stringify({ type: 'bench.ingest', pad: 'x'.repeat(Math.max(0, BODY_BYTES - 40)) });

    const send = async (i: number) => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-bench-seq': String(i),
      };
      if (signer) {
        const now = new Date();
        const msgId = `msg_bench_${++messages}`;
        headers['webhook-id'] = msgId;
        headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
        headers['webhook-signature'] = signer.sign(msgId, now, payload);
      }
      const res = await pool.request({
        path,
        method: 'POST',
        headers,
        body: payload,
        headersTimeout: REQUEST_TIMEOUT_MS,
        bodyTimeout: REQUEST_TIMEOUT_MS,
      });
      await res.body.dump();
      return res.statusCode;
    };

    /** Open loop: request i is due at start + i/rate whatever earlier requests are doing. */
    const run = async (seconds: number) => {
      const total = Math.round(RATE * seconds);
      const latencies: number[] = [];
      const statuses = new Map<string, number>();
      const inflight: Promise<void>[] = [];
      const t0 = performance.now() + 50;
      const progress = setInterval(() => {
        const sorted = [...latencies].sort((a, b) => a - b);
        console.error(
          `[bench:ingest]   ${Math.round((performance.now() - t0) / 1000)} s: sent ${inflight.length}, ` +
            `acked ${latencies.length}, p99 so far ${Math.round(percentile(sorted, 99))} ms, forwarded ${forwarded}`,
        );
      }, 5000);
      for (let i = 0; i < total; i++) {
        const due = t0 + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 1) await delay(wait);
        inflight.push(
          send(i).then(
            (status) => {
              // From the scheduled time, so a stalled sender loop cannot hide queueing.
              latencies.push(performance.now() - due);
              statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
            },
            (err: Error) => {
              statuses.set(`error:${err.message}`, (statuses.get(`error:${err.message}`) ?? 0) + 1);
            },
          ),
        );
      }
      const sentIn = (performance.now() - t0) / 1000;
      await Promise.all(inflight);
      clearInterval(progress);
      latencies.sort((a, b) => a - b);
      return { total, sentIn, latencies, statuses: Object.fromEntries(statuses) };
    };

    console.error(`[bench:ingest] warm-up ${WARMUP_SECONDS} s at ${RATE}/s`);
    const warm = await run(WARMUP_SECONDS);
    console.error(`[bench:ingest] measuring ${SECONDS} s at ${RATE}/s (open loop)`);
    const load = loadavg()[0];
    const m = await run(SECONDS);
    const accepted = m.statuses['202'] ?? 0;
    // How long the worker takes to forward everything that was acknowledged.
    const target = (warm.statuses['202'] ?? 0) + accepted;
    const drainStart = Date.now();
    while (forwarded < target && Date.now() - drainStart < DRAIN_SECONDS * 1000) await delay(200);
    const ms = (x: number) => Math.round(x * 10) / 10;
    const summary = {
      rate: RATE,
      seconds: SECONDS,
      signed: Boolean(args.signed),
      bodyBytes: Buffer.byteLength(payload),
      requests: m.total,
      sentInSeconds: ms(m.sentIn),
      statuses: m.statuses,
      ackMs: {
        p50: ms(percentile(m.latencies, 50)),
        p95: ms(percentile(m.latencies, 95)),
        p99: ms(percentile(m.latencies, 99)),
        max: ms(m.latencies.at(-1) ?? NaN),
      },
      forwardedAll: forwarded >= target,
      forwarded: { acknowledged: target, receivedByDestination: forwarded },
      forwardDrainSeconds: ms((Date.now() - drainStart) / 1000),
      machine: {
        cores: cpus().length,
        memGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        load1: ms(load ?? 0),
      },
    };
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    await pool.close();
    await herald.stop();
    dest.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

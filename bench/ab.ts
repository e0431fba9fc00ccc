// `npm run bench:ab`: an A/B of two Herald setups in one session, alternated A B A B ..., each
// run a fresh `bench/run.ts` (its own Herald, its own Temporal), so both sides share the
// machine's state of the moment. This machine's runs vary by ±15% from one to the next:
// one lone run of each side says little; alternated pairs say more.
//
//   npm run bench:ab -- --a-name dev --a-args= --b-name stack --b-args=--stack --pairs 2 \
//     "--common=--only throughput,fairness --tp-events 5000 --burst 3000" --out bench/results-stack.json
//   npm run bench:ab -- --a-name baseline "--a-args=--herald-root /work/ab-base" \
//     --b-name new "--b-args=--herald-root /work/ab-new" --floor 1500 --out bench/results-ab16.json
//
// Values that start with a dash go with `=` (`--b-args=--stack`), as node's parseArgs wants.
//
// `--floor N`: `bench/floor/run.ts --n N` (what a bare workflow costs the same dev server)
// after each pair, so the floor is measured right beside the runs it is compared with.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'a-name': { type: 'string', default: 'A' },
    'a-args': { type: 'string', default: '' },
    'b-name': { type: 'string', default: 'B' },
    'b-args': { type: 'string', default: '' },
    common: { type: 'string', default: '' },
    pairs: { type: 'string', default: '2' },
    floor: { type: 'string' },
    out: { type: 'string', default: 'bench/results-ab.json' },
  },
});
const split = (s: string) => s.split(/\s+/).filter(Boolean);
const sides = [
  { name: values['a-name'], args: split(values['a-args']) },
  { name: values['b-name'], args: split(values['b-args']) },
];
const pairs = Number(values.pairs);
const log = (m: string) => console.error(`[ab ${new Date().toISOString().slice(11, 19)}] ${m}`);

function run(cmd: string[], logFile: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...cmd], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let all = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      all += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      all += d.toString();
      process.stderr.write(d);
    });
    child.once('exit', (code) => {
      writeFileSync(logFile, all);
      resolve({ code: code ?? 1, stdout });
    });
  });
}

type Run = { side: string; pair: number; startedAt: string; seconds: number; exitCode: number } & Record<
  string,
  unknown
>;

async function main() {
  const runs: Run[] = [];
  const floors: Array<Record<string, unknown>> = [];
  const command = `npm run bench:ab -- ${process.argv
    .slice(2)
    .map((a) => (/\s/.test(a) || a === '' ? JSON.stringify(a) : a))
    .join(' ')}`;
  const write = (partial: boolean) => {
    const numeric = (side: string) => {
      const out: Record<string, number[]> = {};
      for (const r of runs.filter((x) => x.side === side))
        for (const [k, v] of Object.entries(r))
          if (typeof v === 'number' && k !== 'pair') (out[k] ??= []).push(v);
      return out;
    };
    const [a, b] = sides.map((s) => numeric(s.name!));
    const mean = (xs?: number[]) =>
      xs?.length ? Number((xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(3)) : undefined;
    const summary: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(a!), ...Object.keys(b!)])) {
      const am = mean(a![k]);
      const bm = mean(b![k]);
      summary[k] = {
        [sides[0]!.name!]: a![k] ?? [],
        [sides[1]!.name!]: b![k] ?? [],
        [`${sides[0]!.name}Mean`]: am,
        [`${sides[1]!.name}Mean`]: bm,
        ratio: am && bm !== undefined ? Number((bm / am).toFixed(3)) : undefined,
      };
    }
    writeFileSync(
      values.out,
      JSON.stringify(
        {
          command,
          sides: sides.map((s) => ({ name: s.name, args: s.args.join(' ') })),
          common: values.common,
          pairs,
          order: runs.map((r) => `${r.side}#${r.pair}`),
          ...(partial ? { partial: true } : {}),
          summary,
          floor: floors,
          runs,
          at: new Date().toISOString(),
        },
        null,
        2,
      ) + '\n',
    );
  };
  for (let p = 1; p <= pairs; p++) {
    for (const side of sides) {
      const out = join(tmpdir(), `herald-ab-${side.name}-${p}-${process.pid}.json`);
      const started = new Date();
      log(`pair ${p}: ${side.name} (${side.args.join(' ') || 'no flags'})`);
      const r = await run(
        ['bench/run.ts', ...split(values.common), ...side.args, '--out', out],
        `${out}.log`,
      );
      let result: Record<string, unknown> = {};
      try {
        result = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
      } catch {
        result = { errors: { run: `no result file; see ${out}.log` } };
      }
      runs.push({
        ...result,
        side: side.name!,
        pair: p,
        startedAt: started.toISOString(),
        seconds: Math.round((Date.now() - started.getTime()) / 1000),
        exitCode: r.code,
      });
      log(`pair ${p}: ${side.name} done (exit ${r.code}) in ${runs.at(-1)!.seconds} s`);
      write(true);
    }
    if (values.floor) {
      log(`pair ${p}: bench:floor --n ${values.floor}`);
      const started = new Date();
      const r = await run(
        ['bench/floor/run.ts', '--n', values.floor],
        join(tmpdir(), `herald-ab-floor-${p}.log`),
      );
      const last = r.stdout.trim().split('\n').at(-1) ?? '';
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(last) as Record<string, unknown>;
      } catch {
        parsed = { error: `floor exited ${r.code}` };
      }
      floors.push({ pair: p, startedAt: started.toISOString(), ...parsed });
      write(true);
    }
  }
  write(false);
  log(`wrote ${values.out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

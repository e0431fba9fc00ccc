import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 19: the shortened chaos run (2,000 events, the full run's faults) in CI. It starts
// a stack of its own, because it kills and restarts that stack's processes.
describe('19 chaos run, short (worker kill -9 every 10 s, Temporal and PostgreSQL restarts, API kill -9)', () => {
  it('19: every event the API accepted is delivered or dead-lettered as its policy says; no duplicate without a fault', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-chaos-ci-'));
    const out = join(dir, 'chaos.json');
    try {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'bench/chaos.ts', '--short', '--rate', '20', '--out', out],
        {
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      const report = JSON.parse(readFileSync(out, 'utf8')) as {
        figures: {
          accepted: number;
          lost: number;
          unexplained: number;
          duplicates: number;
          duplicatesExplained: number;
        };
        faults: Array<{ kind: string }>;
      };
      expect(report.figures.accepted).toBe(2000);
      expect(new Set(report.faults.map((f) => f.kind))).toEqual(
        new Set(['worker_kill', 'api_kill', 'temporal_restart', 'postgres_restart']),
      );
      expect(report.figures.lost).toBe(0);
      expect(report.figures.unexplained).toBe(0);
      expect(report.figures.duplicatesExplained).toBe(report.figures.duplicates);
      expect(code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

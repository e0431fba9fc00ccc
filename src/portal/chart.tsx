import type { FC } from 'hono/jsx';
import type { AttemptRowJson } from './api-types.js';
import { t } from './strings.js';

const HOUR = 3_600_000;

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function summarize(rows: readonly AttemptRowJson[], now: number) {
  const buckets = Array.from({ length: 24 }, () => ({ ok: 0, failed: 0 }));
  const latencies: number[] = [];
  for (const r of rows) {
    const age = now - Date.parse(r.startedAt);
    if (!(age >= 0 && age < 24 * HOUR)) continue;
    const b = buckets[23 - Math.floor(age / HOUR)]!;
    if (r.result === 'succeeded') b.ok++;
    else b.failed++;
    latencies.push(r.latencyMs);
  }
  latencies.sort((a, b) => a - b);
  return { buckets, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const ms = (v: number | undefined) => (v === undefined ? '–' : `${Math.round(v)} ms`);

/** Attempts per hour by outcome, with latency p50/p99: server-rendered SVG, no script. */
export const AttemptsChart: FC<{ rows: readonly AttemptRowJson[]; now: number }> = ({ rows, now }) => {
  const { buckets, p50, p99 } = summarize(rows, now);
  const ok = buckets.reduce((n, b) => n + b.ok, 0);
  const failed = buckets.reduce((n, b) => n + b.failed, 0);
  if (ok + failed === 0) return <p class="muted">{t.endpoints.noAttempts}</p>;
  const max = Math.max(...buckets.map((b) => b.ok + b.failed));
  const [w, h, bar] = [24 * 12, 60, 10];
  const label = t.endpoints.chartLabel(ok, failed, ms(p50), ms(p99));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${w} ${h}`} width={w} height={h} role="img" aria-label={label}>
        <title>{label}</title>
        {buckets.map((b, i) => {
          const okH = (b.ok / max) * h;
          const failH = (b.failed / max) * h;
          return (
            <g>
              <rect x={i * 12} y={h - okH} width={bar} height={okH} class="bar-ok" />
              <rect x={i * 12} y={h - okH - failH} width={bar} height={failH} class="bar-failed" />
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="key-ok">■</span> {ok} {t.endpoints.succeeded} · <span class="key-failed">■</span>{' '}
        {failed} {t.endpoints.failed} · {t.endpoints.latency} p50 {ms(p50)}, p99 {ms(p99)}
      </figcaption>
    </figure>
  );
};

/** One sample of a counter in a Prometheus text exposition: its labels and value. */
export interface CounterSample {
  labels: Record<string, string>;
  value: number;
}

/** The samples of counter `name` (also exposed as `name_total`). */
export function counterSamples(text: string, name: string): CounterSample[] {
  const line = new RegExp(`^${name}(?:_total)?\\{([^}]*)\\}\\s+([0-9.eE+-]+)`);
  const out: CounterSample[] = [];
  for (const l of text.split('\n')) {
    const m = line.exec(l);
    if (!m) continue;
    const labels = Object.fromEntries(
      [...m[1]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!] as const),
    );
    out.push({ labels, value: Number(m[2]) });
  }
  return out;
}

/** Counter `name` summed by the value of `label` (`?` when absent), over the samples `keep` accepts. */
export function sumByLabel(
  text: string,
  name: string,
  label: string,
  keep: (labels: Record<string, string>) => boolean,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { labels, value } of counterSamples(text, name)) {
    if (!keep(labels)) continue;
    const key = labels[label] ?? '?';
    out[key] = (out[key] ?? 0) + value;
  }
  return out;
}

/** A /metrics page's text, or undefined when it cannot be read (the bench goes on without it). */
export async function fetchMetricsText(metricsUrl: string | undefined): Promise<string | undefined> {
  if (!metricsUrl) return undefined;
  try {
    const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) });
    return res.ok ? await res.text() : undefined;
  } catch {
    return undefined;
  }
}

/** What a counter counted between two readings, by key (keys that did not move are left out). */
export function countsBetween(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(after)) {
    const d = n - (before[key] ?? 0);
    if (d > 0) out[key] = d;
  }
  return out;
}

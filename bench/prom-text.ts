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

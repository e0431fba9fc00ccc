/**
 * Issue 16 (7), R-SMENGO-FAIR: at most `limit` delivery starts in flight from this process;
 * the rest wait, taken in turn by endpoint. Each start is a write on the history service, and
 * the worker's own calls (take a workflow task, complete it) queue behind the same writes. A
 * burst published by 64 connections kept about 66 starts in flight; every history call then
 * waited about 365 ms, the worker took 6 workflow tasks a second from matching, and the other
 * endpoints' first attempts waited 3 s there (BENCHMARKS.md, session 27). Starts past the
 * limit wait here instead, where an endpoint's burst waits behind itself: a start of another
 * endpoint goes next. Under the limit a start waits for nothing.
 */
export class StartGate {
  private running = 0;
  /** Waiting starts by key, in arrival order; keys in the order they take turns. */
  private readonly waiting = new Map<string, Array<() => void>>();

  /** `waitingGauge` counts the starts waiting here (herald_delivery_starts_waiting). */
  constructor(
    readonly limit: number,
    private readonly waitingGauge?: WaitingGauge,
  ) {}

  /** Runs `start` once a place is free, in turn with the other keys' waiting starts. */
  async run<T>(key: string, start: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((go) => this.enqueue(key, go));
    try {
      return await start();
    } finally {
      this.release();
    }
  }

  private enqueue(key: string, go: () => void): void {
    this.waitingGauge?.inc();
    const q = this.waiting.get(key);
    if (q) q.push(go);
    else this.waiting.set(key, [go]);
  }

  /** Hands the freed place to the first key in turn; that key then goes to the back. */
  private release(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.running--;
      return;
    }
    const [key, q] = next.value;
    const go = q.shift()!;
    this.waiting.delete(key);
    if (q.length > 0) this.waiting.set(key, q);
    this.waitingGauge?.dec();
    go();
  }
}

/** What the gate tells of its waiting starts: a prom-client Gauge is one. */
export interface WaitingGauge {
  inc(): void;
  dec(): void;
}

/** The gate a publish store's starts share, or undefined when the limit is 0 (no limit). */
export function startGateFor(limit: number, waitingGauge?: WaitingGauge): StartGate | undefined {
  return limit > 0 ? new StartGate(limit, waitingGauge) : undefined;
}

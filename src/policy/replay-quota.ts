/** R-BIRD-REPLAY: window replays a tenant may request per UTC day. */
export const WINDOW_REPLAYS_PER_DAY = 20;
/** R-DT-REPLAY: replay requests (single or bulk, each counts once) per minute. */
export const REPLAY_REQUESTS_PER_MINUTE = 30;

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function secondsUntilNextUtcDay(ms: number): number {
  const d = new Date(ms);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  return Math.ceil((next - ms) / 1000);
}

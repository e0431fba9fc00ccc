/** R-BIRD-REPLAY: window replays a tenant may request per UTC day. */
export const WINDOW_REPLAYS_PER_DAY = 20;
/** R-DT-REPLAY: replay requests (single or bulk, each counts once) per minute. */
export const REPLAY_REQUESTS_PER_MINUTE = 30;

const DAY_MS = 86_400_000;

/** The UTC day of an epoch-ms time, as a day number: UTC days have no leap seconds in JS time. */
export function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export function secondsUntilNextUtcDay(ms: number): number {
  return Math.ceil(((utcDay(ms) + 1) * DAY_MS - ms) / 1000);
}

// `npm start`'s development allowances: loopback receivers over plain http and the Web UI's
// codec endpoint. They make a laptop demo work out of the box, and they would let a tenant
// aim deliveries at this machine, so they apply only where nothing but this machine can be
// reached anyway: Herald runs its own embedded Temporal server and its API listens on
// loopback. Anywhere else the operator sets each one explicitly, or goes without.

/** The settings `npm start` fills in for local development, and their values. */
export const DEV_ALLOWANCES: Readonly<Record<string, string>> = Object.freeze({
  HERALD_ALLOW_ADDRESSES: '127.0.0.1/32,::1/128',
  HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost,[::1]',
  HERALD_CODEC_ENDPOINT: 'true',
});

/** The API host names that mean loopback only (HERALD_API_HOST's default is 127.0.0.1). */
const LOOPBACK_API_HOSTS = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

export type DevAllowanceDecision =
  /** `applied` names each allowance filled in; one the operator set is theirs, not listed. */
  | { apply: true; applied: Record<string, string> }
  | { apply: false; reason: string };

type Env = Record<string, string | undefined>;

/** Whether `npm start` may apply its development allowances to this environment, and which. */
export function devAllowancesFor(env: Env): DevAllowanceDecision {
  if (env.TEMPORAL_ADDRESS) return { apply: false, reason: 'TEMPORAL_ADDRESS names a Temporal cluster' };
  const apiHost = (env.HERALD_API_HOST ?? '127.0.0.1').trim().toLowerCase();
  if (!LOOPBACK_API_HOSTS.has(apiHost))
    return { apply: false, reason: `HERALD_API_HOST=${apiHost} is not a loopback address` };
  const applied = Object.fromEntries(Object.entries(DEV_ALLOWANCES).filter(([k]) => env[k] === undefined));
  return { apply: true, applied };
}

/** The environment with the allowances `devAllowancesFor` grants filled in. */
export function applyDevAllowances(env: Env): Env {
  const d = devAllowancesFor(env);
  return d.apply ? { ...d.applied, ...env } : { ...env };
}

/** One log line that says which allowances `npm start` applied, or why none. */
export function describeDevAllowances(d: DevAllowanceDecision): string {
  if (!d.apply) return `no development allowances: ${d.reason}; set them explicitly if you need them`;
  const set = Object.entries(d.applied).map(([k, v]) => `${k}=${v}`);
  return set.length
    ? `development allowances (embedded Temporal, API on loopback): ${set.join(' ')}`
    : 'development allowances: none applied, every one is set explicitly';
}

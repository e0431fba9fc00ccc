import { z } from 'zod';
import { applyDevAllowances } from './dev-allowances.js';

// Every setting Herald reads from the environment, parsed once at start-up so a typo
// fails the process before it accepts work rather than in the middle of a delivery.
const csv = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

const port = z.coerce.number().int().min(0).max(65535);

const bool = (fallback: 'true' | 'false') =>
  z
    .enum(['true', 'false'])
    .default(fallback)
    .transform((v) => v === 'true');

export const configSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  HERALD_TASK_QUEUE: z.string().min(1).default('herald'),
  HERALD_API_HOST: z.string().min(1).default('127.0.0.1'),
  HERALD_API_PORT: port.default(3000),
  HERALD_DATA_DIR: z.string().min(1).default('.data'),
  HERALD_TEMPORAL_PORT: port.default(7233),
  HERALD_TEMPORAL_UI_PORT: port.default(8233),
  // Issue 13.3: the embedded dev server's HTTP API and /metrics ports. The CLI picks random
  // ones by default; Herald pins them so deliveries can be refused on them (src/own-ports.ts).
  // Unset: the frontend port + 10 (7243, Temporal's usual HTTP port) and + 11.
  HERALD_TEMPORAL_HTTP_PORT: port.optional(),
  HERALD_TEMPORAL_METRICS_PORT: port.optional(),
  HERALD_OPERATOR_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  // CIDRs that may be delivered to despite R-SSRF; for local development only.
  HERALD_ALLOW_ADDRESSES: csv.default([]),
  // Hosts that may use plain http (R-URL demands https); for local receivers only.
  HERALD_ALLOW_HTTP_HOSTS: csv.default([]),
  HERALD_DEFAULT_PRESET: z.enum(['standard', 'smengo', 'railhook', 'bird', 'dongtien']).default('standard'),
  // base64 32-byte AES keys for the payload codec, current first; older ones only decrypt.
  HERALD_CODEC_KEYS: csv.default([]),
  // Issue 13.1: a worker or API on a cluster it did not start refuses to run without codec
  // keys; this is the only way round, and it is logged at every start.
  HERALD_ALLOW_PLAINTEXT_HISTORY: bool('false'),
  // Issue 13.1: the codec refuses to decode a payload that is not encrypted (one written
  // before the codec was turned on, or injected by anyone with write access to Temporal).
  // Turn on only while migrating histories written in plaintext.
  HERALD_CODEC_ACCEPT_PLAINTEXT: bool('false'),
  // Issue 13.2: serve the codec for the Temporal Web UI, on its own listener. It decrypts
  // payloads for whoever holds HERALD_CODEC_TOKEN, so it binds to loopback by default.
  HERALD_CODEC_ENDPOINT: bool('false'),
  HERALD_CODEC_HOST: z.string().min(1).default('127.0.0.1'),
  HERALD_CODEC_PORT: port.default(3001),
  // The codec listener's credential: `Authorization: Bearer <token>`, or the first path
  // segment (`http://host:port/<token>/decode`), which is the only form the dev server's
  // Web UI can send. `npm start` makes one in .data/codec.token.
  HERALD_CODEC_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  HERALD_CODEC_CORS_ORIGINS: csv.default(['http://127.0.0.1:8233', 'http://localhost:8233']),
  // A request body larger than this is answered 413 before it is read in full.
  HERALD_CODEC_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  // SMTP for health notices (R-SMENGO-HEALTH); without a host, notices go by webhook only.
  HERALD_SMTP_HOST: z.string().min(1).optional(),
  HERALD_SMTP_PORT: port.default(587),
  HERALD_SMTP_SECURE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  HERALD_SMTP_USER: z.string().min(1).optional(),
  HERALD_SMTP_PASS: z.string().min(1).optional(),
  HERALD_SMTP_FROM: z.string().min(3).default('Herald <herald@localhost>'),
  HERALD_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // Issue 20: one listener per process for GET /metrics (Prometheus text), /healthz and
  // /readyz, on loopback by default: metrics name tenants' presets and codes. `0` or `false`
  // turns it off (tests run many processes side by side).
  HERALD_METRICS_PORT: z.preprocess((v) => (v === 'false' ? '0' : v), port).default(9464),
  HERALD_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  // Issue 20: the Temporal SDK's own Prometheus exporter (task slots, poll latency,
  // schedule-to-start), always on loopback; /metrics appends its text. Unset: metrics port + 1.
  HERALD_SDK_METRICS_PORT: port.optional(),
  // Issue 20: tenant and endpoint labels on delivery metrics. Off by default: every endpoint
  // would be a new series in every counter, which is what sinks a Prometheus server.
  HERALD_METRICS_TENANT_LABELS: bool('false'),
  // Issue 16: the SDK's promise stack-trace hook in workflow threads, read by the preload
  // (scripts/workflow-thread-preload.cjs) before this schema runs; listed so a typo fails here.
  // Off: the `__stack_trace` query costs every delivery CPU for a page few operators open.
  HERALD_WORKFLOW_STACK_TRACES: bool('false'),
  // Issue 18: signs portal sessions, portal links and CSRF tokens. Every API process of a
  // deployment needs the same one; without it /portal is closed. `npm start` makes one in
  // .data/portal.key.
  HERALD_PORTAL_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  // Issue 18: origins that may show the portal in an iframe (CSP frame-ancestors); none by default.
  HERALD_PORTAL_FRAME_ANCESTORS: csv.default([]),
  // Issue 18: where browsers reach this API (portal links are made on it); unset, the origin
  // of the request that asked for the link.
  HERALD_PUBLIC_URL: z.url().optional(),
  // Issue 13.6: publishes (POST /v1/events) per tenant, a token bucket per API process;
  // over it, 429 rate_limited with Retry-After. Far above what the benchmarks publish (~60/s).
  HERALD_PUBLISH_RATE_PER_SECOND: z.coerce.number().positive().default(1000),
  HERALD_PUBLISH_BURST: z.coerce.number().int().min(1).default(2000),
  // Issue 13.6: requests to one inbound source (POST /in/{id}), a token bucket per API
  // process; over it, 429 rate_limited with Retry-After. Each request fans out to up to 20
  // destinations; the ingest benchmark sends 200/s to one source.
  HERALD_INGEST_RATE_PER_SECOND: z.coerce.number().positive().default(500),
  HERALD_INGEST_BURST: z.coerce.number().int().min(1).default(1000),
  // Issue 13.6: one publish fans out to at most this many ad-hoc targets (400 too_many_targets),
  // and a tenant has at most this many endpoints (409 endpoint_limit_reached): each one is a
  // workflow, and each target a delivery at a third party, for a single request.
  HERALD_MAX_TARGETS_PER_PUBLISH: z.coerce.number().int().min(0).max(1000).default(20),
  HERALD_MAX_ENDPOINTS_PER_TENANT: z.coerce.number().int().min(1).default(100),
  // A source is a workflow too, and each has its own ingest allowance: a tenant has at most
  // this many live ones (409 source_limit_reached).
  HERALD_MAX_SOURCES_PER_TENANT: z.coerce.number().int().min(1).default(100),
  // Workflows kept in the worker's memory between tasks. Most deliveries sleep for hours
  // between attempts or sit out their replay window, so a bounded cache keeps RSS flat
  // with any number of them; an evicted one is replayed from history when it wakes.
  // 300 rather than 500: 69 MB less RSS with 3,000 asleep and no measurable CPU cost
  // (BENCHMARKS.md, session 4), which brings a 50,000-delivery backlog under 600 MB.
  HERALD_WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(300),
  // A workflow bundle built beforehand (`node --import tsx src/workflow-bundle.ts <file>`, as the
  // image and `npm run stack` do), so a starting worker skips seconds of webpack. It must be
  // built from the same sources as the worker's activities.
  // The worker checks the file is there when it starts (prebuiltBundle).
  HERALD_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).default(40),
  HERALD_WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).default(200),
  // A worker holding every workflow-task slot idle this long, with the server seeing no poll
  // from it, has stalled (src/observability/worker-stall.ts): /readyz says so and the process
  // stops, for its supervisor to start a fresh one. Needs the SDK exporter (HERALD_METRICS_PORT). 0: off.
  HERALD_WORKER_STALL_SECONDS: z.coerce.number().int().min(0).default(120),
  // Issue 16: first attempts sent inside the delivery's first workflow task at once. Each
  // holds a workflow-task slot while its receiver answers, so by default half of those slots
  // (one endpoint at most HERALD_ENDPOINT_MAX_SHARE of these); the rest go out as the send
  // activity. 0 sends every first attempt as the activity.
  HERALD_WORKER_MAX_INLINE_ATTEMPTS: z.coerce.number().int().min(0).optional(),
  // Issue 16: how long a first attempt refused an inline slot waits for one before it goes
  // out as the activity (a second workflow task and an activity task), while the sends
  // holding the slots are younger than this. Inside the inline attempt's 5 s grace. 0: never.
  HERALD_WORKER_INLINE_WAIT_MS: z.coerce.number().int().min(0).max(2000).default(250),
  // Issue 17: the share of those send slots one endpoint may hold; the rest of its sends wait
  // as `concurrency_limited` deferrals (no attempt spent), woken when one of its sends ends.
  // 0.25 of 200 is 50: a receiver answering in 10 s still gets 5/s per worker. 1 turns it off.
  HERALD_ENDPOINT_MAX_SHARE: z.coerce.number().gt(0).max(1).default(0.25),
  // Issue 16 (5), R-SMENGO-FAIR: a delivery started eagerly has its first workflow task handed
  // back with the start, past matching's fairness by endpoint. So each endpoint's publishes
  // start eagerly at most this many a second (and as many at once); the rest queue in matching,
  // where a burst to one endpoint waits behind itself. 0: no delivery starts eagerly.
  HERALD_EAGER_STARTS_PER_ENDPOINT: z.coerce.number().min(0).default(5),
  // Issue 16 (7): delivery starts in flight from one API process; the rest wait, in turn by
  // endpoint. The worker's calls queue behind every start on the history service, so 64
  // publishing connections kept the worker from its tasks. 16: in three alternated A/B pairs it
  // brought (7)'s fast p99 from 1.9-2.0 s to 0.5-0.9 s at the same throughput; 8 had slowed a
  // burst's intake fivefold on a saturated machine (BENCHMARKS.md, sessions 27, 28). 0: no limit.
  HERALD_STARTS_IN_FLIGHT: z.coerce.number().int().min(0).default(16),
  // R-RH-TRANSFORM: limits of the processes that evaluate endpoint transformations. The
  // timeout plus the wait for a free process must fit in an attempt's 5 s lease grace.
  HERALD_TRANSFORM_TIMEOUT_MS: z.coerce.number().int().min(10).max(2500).default(1000),
  HERALD_TRANSFORM_MEMORY_MB: z.coerce.number().int().min(16).max(4096).default(64),
  HERALD_TRANSFORM_PROCESSES: z.coerce.number().int().min(1).max(64).default(2),
  // Railhook's operator settings, by the seed's own names (SPEC §3, R-RH-LIFETIME).
  WEBHOOK_RETRY_AFTER_MAX_SECONDS: z.coerce.number().int().min(0).optional(),
  DELIVERY_ESCALATION_HARD_CAP_HOURS: z.coerce.number().positive().optional(),
  FORWARD_ESCALATION_HARD_CAP_HOURS: z.coerce.number().positive().optional(),
  WEBHOOK_CLAIM_TIMEOUT_SECONDS: z.coerce.number().int().min(2).optional(),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';

  /** One error listing every problem found, one per line, so a start-up shows them all at once. */
  static listing(problems: readonly string[]): ConfigError {
    return new ConfigError(`invalid Herald configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/**
 * HERALD_* variables read by something other than this schema (the server installer and
 * the load tests), so their presence in the environment is not a typo.
 */
export const HERALD_VARIABLES_READ_ELSEWHERE = ['HERALD_CACHE_DIR', 'HERALD_TEST_SCALE_N'] as const;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(Object.entries(env).filter(([k]) => k in configSchema.shape));
  // Issue 13.1: an unknown HERALD_* name is a typo until proven otherwise. Ignoring one once
  // turned a misspelt HERALD_CODEC_KEYS into a production stack writing plaintext history.
  const unknown = Object.keys(env)
    .filter((k) => k.startsWith('HERALD_') && env[k] !== undefined)
    .filter(
      (k) =>
        !(k in configSchema.shape) && !(HERALD_VARIABLES_READ_ELSEWHERE as readonly string[]).includes(k),
    )
    .sort();
  const lines = unknown.map((k) => {
    const near = closestKnownVariable(k);
    return `${k}: unknown variable${near ? ` (did you mean ${near}?)` : ''}`;
  });
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) lines.push(...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const tasks = parsed.success
    ? workflowTasksWithinCache(parsed.data, known.HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS !== undefined)
    : undefined;
  if (typeof tasks === 'string') lines.push(tasks);
  if (lines.length > 0 || !parsed.success) throw ConfigError.listing(lines);
  return typeof tasks === 'number' ? { ...parsed.data, HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: tasks } : parsed.data;
}

/**
 * The SDK runs no more workflow tasks at once than it caches workflows (it lowers the number
 * with a warning, and a cache of 1 is 2), while the inline first attempts are sized from the
 * configured number: 40 beside a cache of 10 gave 20 inline attempts, which could hold all 10
 * slots, the very thing their bound is there to prevent. So the default follows a smaller
 * cache (the number to use), and a number set above the cache is refused (its problem line).
 */
function workflowTasksWithinCache(config: Config, set: boolean): number | string | undefined {
  const cache = config.HERALD_WORKER_MAX_CACHED_WORKFLOWS;
  const tasks = config.HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS;
  if (cache === 0) return undefined;
  const cached = Math.max(2, cache);
  if (tasks <= cached) return undefined;
  if (!set) return cached;
  return (
    `HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: ${tasks} is more than HERALD_WORKER_MAX_CACHED_WORKFLOWS ` +
    `(${cache}); the SDK runs no more workflow tasks at once than it caches workflows`
  );
}

/** The known HERALD_* name nearest to `name`, if it is near enough to be the one meant. */
export function closestKnownVariable(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const k of Object.keys(configSchema.shape)) {
    if (!k.startsWith('HERALD_')) continue;
    const distance = levenshtein(name, k);
    if (!best || distance < best.distance) best = { name: k, distance };
  }
  // Beyond a third of the name it is a different word, not a typo: no suggestion.
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * Development defaults: `npm start` delivers to receivers on this machine out of the box,
 * but only with its embedded Temporal server and the API on loopback (issue 13.3; the rule
 * and the list are in src/dev-allowances.ts). An explicit setting always wins.
 */
export function withDevDefaults(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return applyDevAllowances(env);
}

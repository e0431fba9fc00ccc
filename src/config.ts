import { z } from 'zod';

// Every setting Herald reads from the environment, parsed once at start-up so a typo
// fails the process before it accepts work rather than in the middle of a delivery.
const csv = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

const port = z.coerce.number().int().min(0).max(65535);

export const configSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  HERALD_TASK_QUEUE: z.string().min(1).default('herald'),
  HERALD_API_HOST: z.string().min(1).default('127.0.0.1'),
  HERALD_API_PORT: port.default(3000),
  HERALD_DATA_DIR: z.string().min(1).default('.data'),
  HERALD_TEMPORAL_PORT: port.default(7233),
  HERALD_TEMPORAL_UI_PORT: port.default(8233),
  HERALD_OPERATOR_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  // CIDRs that may be delivered to despite R-SSRF; for local development only.
  HERALD_ALLOW_ADDRESSES: csv.default([]),
  // Hosts that may use plain http (R-URL demands https); for local receivers only.
  HERALD_ALLOW_HTTP_HOSTS: csv.default([]),
  HERALD_DEFAULT_PRESET: z.enum(['standard', 'smengo', 'railhook', 'bird', 'dongtien']).default('standard'),
  // base64 32-byte AES keys for the payload codec, current first; older ones only decrypt.
  HERALD_CODEC_KEYS: csv.default([]),
  // Serve /codec for the Temporal Web UI (decrypts payloads for whoever can reach it).
  HERALD_CODEC_ENDPOINT: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  HERALD_CODEC_CORS_ORIGINS: csv.default(['http://127.0.0.1:8233', 'http://localhost:8233']),
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
  // Workflows kept in the worker's memory between tasks. Most deliveries sleep for hours
  // between attempts or sit out their replay window, so a bounded cache keeps RSS flat
  // with any number of them; an evicted one is replayed from history when it wakes.
  // 300 rather than 500: 69 MB less RSS with 3,000 asleep and no measurable CPU cost
  // (BENCHMARKS.md, session 4), which brings a 50,000-delivery backlog under 600 MB.
  HERALD_WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(300),
  HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).default(40),
  HERALD_WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).default(200),
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
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(Object.entries(env).filter(([k]) => k in configSchema.shape));
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid Herald configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Development defaults: `npm start` delivers to receivers on this machine out of the box. */
export function withDevDefaults(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return {
    HERALD_ALLOW_ADDRESSES: '127.0.0.1/32,::1/128',
    HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost,[::1]',
    HERALD_CODEC_ENDPOINT: 'true',
    ...env,
  };
}

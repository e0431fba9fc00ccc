import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Which env files each service reads: docker-compose.yml's `env_file:` lists and this stack
 * both come from here (test/unit/compose.test.ts compares them), so a setting changed in one
 * file reaches both deployments.
 */
export const SERVICE_ENV_FILES = {
  'temporal-schema': ['deploy/env/temporal-schema.env'],
  temporal: ['deploy/env/temporal.env'],
  'herald-temporal-setup': ['deploy/env/herald-setup.env'],
  'temporal-ui': ['deploy/env/temporal-ui.env'],
  'herald-worker': ['deploy/env/herald.env', 'deploy/env/herald-worker.env'],
  'herald-api': ['deploy/env/herald.env', 'deploy/env/herald-api.env'],
} as const satisfies Record<string, readonly string[]>;

export type ServiceName = keyof typeof SERVICE_ENV_FILES;

/**
 * The only variables a deployment sets besides the env files: where things are (addresses,
 * ports, paths inside or outside a container) and secrets. Compose's `environment:` and the
 * stack's overrides may name nothing else.
 */
export const TOPOLOGY: Record<ServiceName, readonly string[]> = {
  'temporal-schema': [
    'POSTGRES_SEEDS',
    'DB_PORT',
    'SQL_PASSWORD',
    'TEMPORAL_SCHEMA_DIR',
    'TEMPORAL_SQL_TOOL',
  ],
  temporal: [
    'POSTGRES_SEEDS',
    'DB_PORT',
    'POSTGRES_PORT',
    'POSTGRES_PWD',
    'BIND_ON_IP',
    'DYNAMIC_CONFIG_FILE_PATH',
    'FRONTEND_GRPC_PORT',
    'FRONTEND_HTTP_PORT',
    'FRONTEND_MEMBERSHIP_PORT',
    'HISTORY_GRPC_PORT',
    'HISTORY_MEMBERSHIP_PORT',
    'MATCHING_GRPC_PORT',
    'MATCHING_MEMBERSHIP_PORT',
    'WORKER_GRPC_PORT',
    'WORKER_MEMBERSHIP_PORT',
  ],
  'herald-temporal-setup': ['TEMPORAL_ADDRESS', 'PATH'],
  'temporal-ui': ['TEMPORAL_ADDRESS', 'TEMPORAL_UI_PORT', 'TEMPORAL_CODEC_ENDPOINT', 'TEMPORAL_CORS_ORIGINS'],
  'herald-worker': [
    'TEMPORAL_ADDRESS',
    'HERALD_OPERATOR_KEY',
    'HERALD_CODEC_KEYS',
    'HERALD_LOG_LEVEL',
    'HERALD_METRICS_HOST',
    'HERALD_METRICS_PORT',
    'HERALD_WORKFLOW_BUNDLE',
  ],
  'herald-api': [
    'TEMPORAL_ADDRESS',
    'HERALD_OPERATOR_KEY',
    'HERALD_CODEC_KEYS',
    'HERALD_LOG_LEVEL',
    'HERALD_API_HOST',
    'HERALD_API_PORT',
    'HERALD_METRICS_HOST',
    'HERALD_METRICS_PORT',
  ],
};

/**
 * What the stack adds that compose does not: its receivers are on loopback (the tests',
 * the chaos run's), which R-SSRF refuses unless allowed. Named here so the difference is
 * one reviewed list, printed at every start.
 */
export const LOOPBACK_RECEIVER_ALLOWANCES: Readonly<Record<string, string>> = Object.freeze({
  HERALD_ALLOW_ADDRESSES: '127.0.0.1/32,::1/128',
  HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1,localhost,[::1]',
});

/**
 * The stack's second difference: the API serves the Web UI's codec (issue 13.2), which
 * compose leaves off because it needs one more secret (docker-compose.yml says how to turn
 * it on). The token, host, port and CORS origins are the stack's own topology.
 */
export const STACK_WEB_UI_CODEC = [
  'HERALD_CODEC_ENDPOINT',
  'HERALD_CODEC_TOKEN',
  'HERALD_CODEC_HOST',
  'HERALD_CODEC_PORT',
  'HERALD_CODEC_CORS_ORIGINS',
] as const;

export const DYNAMIC_CONFIG_FILE = join(ROOT, 'deploy/temporal/dynamicconfig/herald.yaml');
export const SETUP_SCHEMA_SCRIPT = join(ROOT, 'deploy/temporal/setup-schema.sh');
export const HERALD_SETUP_SCRIPT = join(ROOT, 'deploy/temporal/herald-setup.sh');

/**
 * The Node arguments of a Herald service: docker-compose.yml's command without `node`
 * (compose.test.ts holds the two equal). The heap cap keeps a worker's RSS under a backlog
 * in bounds (BENCHMARKS.md), and the worker's preload serves its workflow thread.
 */
export function heraldNodeArgs(service: 'herald-worker' | 'herald-api'): string[] {
  return [
    '--max-old-space-size=320',
    '--single-threaded',
    ...(service === 'herald-api' ? [] : ['--require=./scripts/workflow-thread-preload.cjs']),
    '--import',
    'tsx',
    service === 'herald-api' ? 'src/api/server.ts' : 'src/worker.ts',
  ];
}

export function envFilesOf(service: ServiceName): string[] {
  return SERVICE_ENV_FILES[service].map((f) => join(ROOT, f));
}

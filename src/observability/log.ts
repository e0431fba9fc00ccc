// Issue 20: Herald's one logger. A JSON object per line, always the same keys where known:
// time, level, message, tenant, endpoint, delivery, workflowId, traceId. Callers pass ids,
// never bodies, headers or keys: nothing here can tell a secret from a word, so no field
// carries free text from a request (test/observability/no-secrets-in-logs.test.ts).
import { trace } from '@opentelemetry/api';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogFields {
  tenant?: string;
  endpoint?: string;
  delivery?: string;
  workflowId?: string;
  traceId?: string;
  [key: string]: unknown;
}

export interface Logger {
  /**
   * An info line written whatever the level: what a process says while it starts and stops
   * (where it listens, which task queue), which an operator and supervisors wait for.
   */
  notice(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export interface LogSink {
  write(line: string): void;
}

let threshold: LogLevel = 'info';
let sink: LogSink = { write: (line) => process.stdout.write(line) };

export function configureLogging(opts: { level?: LogLevel; sink?: LogSink }) {
  if (opts.level) threshold = opts.level;
  if (opts.sink) sink = opts.sink;
}

export function logEnabled(level: LogLevel): boolean {
  return RANK[level] >= RANK[threshold];
}

/** An error as log fields: its name and message, never a stack of request data. */
export function errorFields(err: unknown): LogFields {
  if (err instanceof Error) return { error: err.message, errorType: err.name, stack: err.stack };
  return { error: String(err) };
}

export function write(level: LogLevel, message: string, fields: LogFields = {}, always = false) {
  if (!always && !logEnabled(level)) return;
  const span = trace.getActiveSpan()?.spanContext();
  const entry: Record<string, unknown> = { time: new Date().toISOString(), level, message };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) entry[k] = v;
  if (span && entry.traceId === undefined) entry.traceId = span.traceId;
  sink.write(`${JSON.stringify(entry)}\n`);
}

export function createLogger(base: LogFields = {}): Logger {
  const at = (level: LogLevel) => (message: string, fields?: LogFields) =>
    write(level, message, fields ? { ...base, ...fields } : base);
  return {
    notice: (message, fields) => write('info', message, fields ? { ...base, ...fields } : base, true),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (fields) => createLogger({ ...base, ...fields }),
  };
}

export const log = createLogger();

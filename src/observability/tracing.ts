// Issue 20: OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-only
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set; the OTLP/HTTP exporter reads the standard
// OTEL_* variables itself. One trace per publish: the API's span, the client's
// StartWorkflow spans, the workflows' spans and one RunActivity:sendAttempt span per attempt,
// joined through Temporal headers by @temporalio/interceptors-opentelemetry.
import { context, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Client } from '@temporalio/client';
import {
  OpenTelemetryPlugin,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { Config } from '../config.js';
import { dataConverterFor } from '../temporal/data-converter.js';
import { newHeraldClient } from '../temporal/herald-client.js';

export function tracingEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

interface Tracing {
  provider: NodeTracerProvider;
  spanProcessor: SpanProcessor;
  resource: Resource;
  tracer: Tracer;
}

let current: Tracing | undefined;

/** The process's tracer provider, started on first use; undefined while tracing is off. */
export function processTracing(): Tracing | undefined {
  if (current || !tracingEnabled()) return current;
  const resource = new Resource({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'herald' });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The AsyncLocalStorage context manager: a span started around a request is the parent
  // of what the request starts.
  provider.register();
  current = { provider, spanProcessor, resource, tracer: trace.getTracer('herald') };
  return current;
}

/** Sends what is buffered (tests, and a clean shutdown). */
export async function flushTracing(): Promise<void> {
  await current?.provider.forceFlush();
}

export async function shutdownTracing(): Promise<void> {
  await current?.provider.shutdown();
  current = undefined;
}

/** The worker's plugin: activity and workflow interceptors, and the sink workflow spans leave by. */
export function workerTracingPlugins(): OpenTelemetryPlugin[] {
  const t = processTracing();
  return t ? [new OpenTelemetryPlugin({ resource: t.resource, spanProcessor: t.spanProcessor })] : [];
}

/** The API's client with the trace carried into every workflow it starts or signals. */
export function tracedClient(client: Client, config: Config): Client {
  if (!processTracing()) return client;
  return newHeraldClient({
    connection: client.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: dataConverterFor(config),
    interceptors: [new OpenTelemetryWorkflowClientInterceptor()],
  });
}

/** Runs `fn` inside a span when tracing is on; plain otherwise. */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, string>,
  fn: () => Promise<T>,
): Promise<T> {
  const t = processTracing();
  if (!t) return fn();
  return t.tracer.startActiveSpan(name, { attributes }, context.active(), async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

// A stand-in OTLP/HTTP collector on loopback: keeps every span the exporter posts (JSON).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpBody = {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: Array<{ key: string; value: OtlpValue }>;
      }>;
    }>;
  }>;
};

export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  readonly contentTypes: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.contentTypes.push(String(req.headers['content-type']));
        if (req.url === '/v1/traces') {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody;
          for (const rs of body.resourceSpans ?? [])
            for (const ss of rs.scopeSpans ?? [])
              for (const s of ss.spans ?? [])
                this.spans.push({
                  traceId: s.traceId,
                  spanId: s.spanId,
                  parentSpanId: s.parentSpanId || undefined,
                  name: s.name,
                  attributes: Object.fromEntries(
                    (s.attributes ?? []).map((a) => [
                      a.key,
                      a.value.stringValue ?? a.value.intValue ?? a.value.boolValue,
                    ]),
                  ),
                });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop() {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

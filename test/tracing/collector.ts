import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean };
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
  /** The `service.name` of the process that exported it. */
  service?: string;
}

export interface Collector {
  url: string;
  spans: OtlpSpan[];
  close(): Promise<void>;
}

/** An OTLP/HTTP collector on 127.0.0.1 that keeps every span it is sent (JSON encoding), with its service name. */
export async function startCollector(): Promise<Collector> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        resourceSpans: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const r of body.resourceSpans) {
        const service = r.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
        for (const s of r.scopeSpans) spans.push(...s.spans.map((span) => ({ ...span, ...(service !== undefined && { service }) })));
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())),
  };
}

/** The value of a span's attribute, as a string. */
export function attributeOf(span: OtlpSpan, key: string): string | undefined {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : String(v.stringValue ?? v.intValue ?? v.boolValue);
}

/**
 * The OpenTelemetry SDK and its OTLP/HTTP exporter, imported only when tracing.otlpEndpoint is set:
 * a default start neither loads nor pays for them. Spans are batched and exported in the
 * background; the W3C trace context propagator reads and writes `traceparent`.
 *
 * @module tracing/sdk
 */
import { context, propagation, trace } from '@opentelemetry/api';
import type { Config } from '../config/schema.js';
import { redactedUrl } from '../domain/url-redaction.js';
import { VERSION } from '../version.js';
import { setTracingOn } from './spans.js';

/** Where the start is said: the daemon's logger, or `borderd receive`'s console. */
export interface TracingLog {
  info(fields: Record<string, unknown>, message: string): void;
}

/** Starts tracing when configured; resolves to what flushes and stops it. */
export async function startTracing(config: Config['tracing'], log: TracingLog): Promise<() => Promise<void>> {
  const url = config.otlpEndpoint;
  if (url === undefined) return async () => {};
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': VERSION }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  setTracingOn(true);
  log.info({ otlpEndpoint: redactedUrl(url) }, 'tracing: spans are exported over OTLP/HTTP');
  return async () => {
    setTracingOn(false);
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  };
}

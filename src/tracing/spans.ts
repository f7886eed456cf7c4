/**
 * borderd's spans, written against `@opentelemetry/api` alone: while no SDK is started (no
 * tracing.otlpEndpoint) every function here returns at its first line, so a default start pays
 * nothing. src/tracing/sdk.ts starts the SDK and turns them on.
 *
 * @module tracing/spans
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { VERSION } from '../version.js';

let on = false;

/** Whether an SDK is started in this process (tracing.otlpEndpoint). */
export const tracingOn = (): boolean => on;

/** For src/tracing/sdk.ts only. */
export function setTracingOn(value: boolean): void {
  on = value;
}

export const tracer = () => trace.getTracer('borderd', VERSION);

export { SpanKind };

/** The W3C `traceparent` of the active span, to store with an event or send with a delivery. */
export function activeTraceparent(): string | undefined {
  if (!on) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a stored or received `traceparent` names (the root context when there is none). */
export function contextOf(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** Sets attributes on the active span, if there is one. */
export function annotate(attributes: Attributes): void {
  if (!on) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent: the active context when absent. */
  parent?: Context;
  /** Spans this one is related to without being their child. */
  links?: Link[];
}

/** A link to the active span, if there is one. */
export function linkToActive(): Link | undefined {
  if (!on) return undefined;
  const active = trace.getActiveSpan()?.spanContext();
  return active && { context: active };
}

/**
 * Starts a span the caller ends, for work that does not fit one callback (several run at once, each
 * ending on its own). Undefined without tracing.
 */
export function startSpan(name: string, opts: SpanOptions): Span | undefined {
  if (!on) return undefined;
  return tracer().startSpan(
    name,
    {
      kind: opts.kind ?? SpanKind.INTERNAL,
      ...(opts.attributes && { attributes: opts.attributes }),
      ...(opts.links?.length && { links: opts.links }),
    },
    opts.parent ?? context.active(),
  );
}

/**
 * Runs `fn` in a span (its child spans and `activeTraceparent` see it); an error ends the span with
 * an error status and is thrown on. Without tracing, `fn` runs alone and gets no span.
 */
export async function inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!on) return fn(undefined);
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    {
      kind: opts.kind ?? SpanKind.INTERNAL,
      ...(opts.attributes && { attributes: opts.attributes }),
      ...(opts.links?.length && { links: opts.links }),
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

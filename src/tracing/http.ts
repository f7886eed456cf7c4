/**
 * A server span per API request, continuing the caller's `traceparent`, named by the route's
 * pattern once it is known (never the raw path). Mounted by the app only while tracing is on.
 *
 * @module tracing/http
 */
import type { NextFunction, Request, Response } from 'express';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { contextOf, SpanKind, tracer } from './spans.js';

export function traceRequests(req: Request, res: Response, next: NextFunction): void {
  const parent = contextOf(req.headers);
  const span = tracer().startSpan(req.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } }, parent);
  const end = (): void => {
    const route = (res.locals.route as string | undefined) ?? (req.route ? `${req.baseUrl}${req.route.path as string}` : undefined);
    if (route) {
      span.updateName(`${req.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  res.once('close', end);
  context.with(trace.setSpan(parent, span), next);
}

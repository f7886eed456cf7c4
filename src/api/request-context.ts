/**
 * x-request-id on every response (a caller's own id is kept when it is sane), and one log line per
 * request: on 'finish' when the response was sent in full, else on 'close' with `aborted: true` (a
 * client that went away mid-response, such as a closed event stream, gets its line too), and the
 * `requestAnswered` signal the metrics count. When the info level is off and nothing listens to the
 * signal (benchmarks, quiet deployments without metrics) no listener or timer is set at all.
 *
 * @module api/request-context
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logging/logger.js';
import { newId } from '../domain/ids.js';
import type { RequestAnswered, Signal } from '../signals.js';

const INBOUND_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(log: Logger, answered: Signal<RequestAnswered>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && INBOUND_ID.test(incoming) ? incoming : newId('req');
    res.setHeader('x-request-id', requestId);
    res.locals.requestId = requestId;
    const logs = log.isLevelEnabled('info');
    if (logs || answered.listeners > 0) {
      const started = process.hrtime.bigint();
      let logged = false;
      const line = (aborted: boolean): void => {
        if (logged) return;
        logged = true;
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        // Set by the route's first handler; the router's own layers (405 answers) name theirs in req.route.
        const route = (res.locals.route as string | undefined) ?? (req.route ? `${req.baseUrl}${req.route.path as string}` : undefined);
        answered.emit({ method: req.method, route: route ?? 'unmatched', status: res.statusCode, seconds: ms / 1000 });
        if (!logs) return;
        // A load balancer's or supervisor's health checks come every few seconds: detail, not the log's story.
        const level = route === '/healthz' || route === '/readyz' ? 'debug' : 'info';
        log[level](
          {
            requestId,
            method: req.method,
            route: route ?? '(unmatched)',
            status: res.statusCode,
            ms: Math.round(ms * 100) / 100,
            orgId: res.locals.orgId as string | undefined,
            ...(aborted ? { aborted: true } : {}),
          },
          'request',
        );
      };
      // 'finish' comes first when the response was sent in full; 'close' alone means it was not.
      res.once('finish', () => line(false));
      res.once('close', () => line(true));
    }
    next();
  };
}

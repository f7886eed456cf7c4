import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logging/logger.js';
import { newId } from '../domain/ids.js';

const INBOUND_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** x-request-id on every response (a caller's own id is kept when it is sane), and one log line per request. */
export function requestContext(log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && INBOUND_ID.test(incoming) ? incoming : newId('req');
    res.setHeader('x-request-id', requestId);
    res.locals.requestId = requestId;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = req.route?.path as string | undefined;
      log.info(
        {
          requestId,
          method: req.method,
          route: route ? `${req.baseUrl}${route}` : '(unmatched)',
          status: res.statusCode,
          ms: Math.round(ms * 100) / 100,
          orgId: res.locals.orgId as string | undefined,
        },
        'request',
      );
    });
    next();
  };
}

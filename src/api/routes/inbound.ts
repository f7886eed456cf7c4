/**
 * POST /v1/webhooks/{inbound.pathName}, where the card network posts its notifications: the sender check ahead of the body
 * parser, and the route that stores each notification before its 200.
 *
 * @module api/routes/inbound
 */
import express, { type Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { BorderdError, badRequest } from '../../domain/errors.js';
import { receiveNotification } from '../../inbound/intake.js';
import { inboundNotificationSchema } from '../../inbound/notification.js';
import { inboundExposure, senderCheckRequired, senderChecker } from '../../inbound/sender-check.js';
import { addressKey } from '../../domain/failure-budget.js';
import type { RouteModule } from '../route.js';

const receivedResponse = z.object({
  received: z.literal(true),
  eventId: z.string(),
  duplicate: z.boolean(),
});

/**
 * The sender check (IP allowlist, client-certificate header) of the inbound route as a middleware that
 * app.ts mounts ahead of the JSON body parser: a refused sender gets 403 before its body is read,
 * never a 400, 413 or 415 that would tell it something about the body rules. It matches the route
 * the same way the API router does (Express defaults: case-insensitive, optional trailing slash).
 */
export function inboundSenderGate(ctx: AppContext): Router {
  const checkSender = senderChecker(ctx.config.inbound);
  const closed = inboundExposure(ctx.config) === 'closed';
  const gate = express.Router();
  gate.post(`/v1/webhooks/${ctx.config.inbound.pathName}`, (req, _res, next) => {
    try {
      if (closed) throw senderCheckRequired();
      // Express's compiled server.trustProxy, asked about the connection's own peer (hop 0).
      const trusted = req.app.get('trust proxy fn') as (address: string, hop: number) => boolean;
      checkSender({ ip: req.ip, header: (name) => req.get(name), peerIsTrustedProxy: trusted(req.socket.remoteAddress ?? '', 0) });
      next();
    } catch (err) {
      next(err);
    }
  });
  return gate;
}

/**
 * The card network posts notifications here, without a bearer token, past the sender check
 * (inboundSenderGate); the body is validated by the route's schema, then the handler joins a
 * group commit.
 */
export const inboundRoutes: RouteModule = (api, { ctx }) => {
  api.route({
    method: 'post',
    path: `/v1/webhooks/${ctx.config.inbound.pathName}`,
    summary: 'Receive a card-network notification',
    description:
      'Body: eventId, eventType, eventCreatedDate, ica (strings, 1 to 255 characters) and data (the compact JWE string, or an object holding it in one member), and nothing else. ' +
      'Stored as received before the 200; the same eventId and ica again answers 200 without being processed twice. Decryption runs afterwards.',
    tags: ['inbound'],
    auth: 'none',
    body: inboundNotificationSchema,
    responses: {
      200: { description: 'stored (or already stored)', schema: receivedResponse },
      400: { description: 'a field is missing, unknown, too long, not a string, or data is not a JWE' },
      403: { description: 'the sender is outside the allowlist or lacks the client-certificate header' },
      413: { description: 'the body is larger than inbound.bodyLimitBytes' },
      415: { description: 'the body is not JSON, or not in UTF-8' },
      429: {
        description:
          'this address has inbound.maxUnmatchedPerSender notifications stored for unmapped icas (unmatched_limit_reached), or, on an endpoint open to any sender, stored at all (sender_limit_reached)',
      },
      503: { description: 'reachable from other hosts with no sender check configured: nothing is stored' },
    },
    bodyLimitBytes: ctx.config.inbound.bodyLimitBytes,
    groupCommit: true, // a burst of notifications shares one fsync; each is on disk before its 200
    handler: async ({ ctx, req, body }) => {
      if (!req.rawBody) throw badRequest('validation_failed', 'the body must be a JSON object', [{ path: 'body', message: 'required' }]);
      // The row keeps the body as UTF-8 text and the worker parses that text again. The JSON parser
      // also decodes UTF-16 and UTF-32: such a body would be answered 200 and then never be readable.
      if (req.rawBodyCharset !== 'utf-8')
        throw new BorderdError(415, 'unsupported_media_type', 'card-network notifications must be UTF-8 JSON');
      const result = await receiveNotification(ctx, body, req.rawBody.toString('utf8'), addressKey(req.ip ?? ''));
      return { status: 200, body: { received: true, eventId: result.eventId, duplicate: result.duplicate } };
    },
  });
};

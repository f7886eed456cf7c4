/**
 * POST /v1/auth/m2m/token: client credentials exchanged for an access token. 201 as the reference service
 * answers; the token is an ES256 JWT with a kid.
 *
 * @module api/routes/auth
 */
import { z } from 'zod';
import { issuedTokenSchema, piiAccessSchema } from '../../services/tokens.js';
import type { RouteModule } from '../route.js';

const tokenRequest = z.strictObject({
  clientId: z.string().min(1).max(200),
  clientSecret: z.string().min(1).max(500),
  piiAccess: piiAccessSchema.optional(),
});

export const authRoutes: RouteModule = (api, { tokens }) => {
  api.route({
    method: 'post',
    path: '/v1/auth/m2m/token',
    summary: 'Exchange client credentials for an access token',
    description:
      'piiAccess defaults to "all"; a client limited to "redacted" gets "redacted" when it asks for nothing and 403 when it asks for "all".',
    tags: ['auth'],
    auth: 'none',
    // Read before any authentication, and a token request is a few hundred bytes: a large (or deeply
    // nested) body from anyone is refused before it is parsed.
    bodyLimitBytes: 16 * 1024,
    body: tokenRequest,
    responses: {
      201: { description: 'token issued', schema: issuedTokenSchema },
      401: { description: 'unknown client, wrong secret or revoked client (indistinguishable)' },
      403: { description: 'piiAccess "all" asked by a client limited to "redacted"' },
      429: { description: 'this address sent auth.failedTokenRequestsPerMinute wrong credentials; retry after Retry-After' },
    },
    handler: async ({ body, req, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      // req.ip follows server.trustProxy: behind a proxy, the address it reports.
      return { status: 201, body: await tokens.issue(body, req.ip ?? req.socket.remoteAddress) };
    },
  });
};

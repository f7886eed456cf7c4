/**
 * Per-route authentication. Bearer routes attach the verified AuthContext to res.locals.auth (the
 * organization every later query is scoped by); admin routes check the operator token.
 *
 * @module api/authenticate
 */
import type { NextFunction, Request, Response } from 'express';
import { unauthorized } from '../domain/errors.js';
import { MISSING_TOKEN } from './problems.js';
import { tokensEqual } from '../security/admin-token.js';
import type { TokenService } from '../services/tokens.js';
import type { AuthMode } from './route.js';

// RFC 7235: the scheme is case-insensitive ("bearer" is "Bearer") and one or more spaces follow it;
// the token is RFC 6750's b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

function bearerToken(req: Request): string {
  const header = req.headers.authorization;
  if (!header) throw unauthorized(MISSING_TOKEN, 'the Authorization header is missing; send "Authorization: Bearer <accessToken>"');
  const match = BEARER.exec(header);
  if (!match) throw unauthorized('malformed_authorization', 'the Authorization header must have the form "Bearer <accessToken>"');
  return match[1]!;
}

export function authenticator(tokens: TokenService, adminToken: string) {
  return (mode: AuthMode) =>
    async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      try {
        if (mode === 'bearer') {
          res.locals.auth = await tokens.verify(bearerToken(req));
          res.locals.orgId = res.locals.auth.orgId;
        } else if (mode === 'admin') {
          if (!tokensEqual(bearerToken(req), adminToken)) throw unauthorized('invalid_admin_token', 'the admin token is not valid');
          res.locals.admin = true;
        }
        next();
      } catch (err) {
        next(err);
      }
    };
}

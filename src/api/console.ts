/**
 * The web console's files at /console: static files built into the package (dist/console), served
 * with a Content-Security-Policy that lets the page load only its own scripts and styles and talk
 * only to this daemon. Nothing is fetched from elsewhere at run time.
 *
 * @module api/console
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import { BorderdError } from '../domain/errors.js';
import { PACKAGE_ROOT } from '../version.js';
import { sendProblem } from './problems.js';

export const CONSOLE_PATH = '/console';

/** The policy every console answer carries: own scripts, styles and API calls only; no frames, no forms elsewhere, no plugins. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The console's files, or a 404 that says how to build them. */
export function consoleFiles(dir = join(PACKAGE_ROOT, 'dist', 'console')) {
  const router = express.Router();
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.set({
      'Content-Security-Policy': CONSOLE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      // The files change with each release; the browser asks again rather than run an old script against a new API.
      'Cache-Control': 'no-cache',
    });
    next();
  });
  if (!existsSync(join(dir, 'index.html'))) {
    router.use((_req: Request, res: Response) =>
      sendProblem(res, new BorderdError(404, 'console_not_built', 'the console is not built: run npm run build')),
    );
    return router;
  }
  router.use(express.static(dir, { index: 'index.html', redirect: true, dotfiles: 'ignore', fallthrough: true }));
  return router;
}

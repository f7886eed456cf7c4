/**
 * The API's express app: the routes' chains (authentication before the body is read), 405s and
 * 404s, errors as problem details, and a table that finds a route with a fixed path before the
 * router does.
 *
 * @module api/app
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { BorderdError } from '../domain/errors.js';
import { authenticator } from './authenticate.js';
import { CONSOLE_PATH, consoleFiles } from './console.js';
import { buildOpenApi } from './openapi.js';
import { sendProblem } from './problems.js';
import { requestContext } from './request-context.js';
import { createGroupCommit } from '../db/group-commit.js';
import { isDatabaseBusy, isDatabaseUnavailable, isStorageFull, isTransientConflict } from '../db/database.js';
import { storageFull, storageWatch } from '../alerts/storage-watch.js';
import { inlineReads } from '../db/read-pool.js';
import { EventSignatures } from '../delivery/event-signatures.js';
import { readQueries } from '../services/offloaded-reads.js';
import { ApiRegistry, routeChain, toExpressPath, type ApiDeps, type Middleware, type RouteModule } from './route.js';
import { routeModules } from './routes/index.js';
import { inboundSenderGate } from './routes/inbound.js';
import { SENDER_CHECK_REQUIRED } from '../inbound/sender-check.js';
import { RefusalLog } from '../logging/refusal-log.js';
import { VERSION } from '../version.js';
import { traceRequests } from '../tracing/http.js';
import { tracingOn } from '../tracing/spans.js';
import './raw-body.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json(?:\s*;.*)?$/i;

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** 415 for a body that does not say it is JSON; bodies are JSON everywhere in this API. */
function requireJson(req: Request, _res: Response, next: NextFunction): void {
  if (['POST', 'PUT', 'PATCH'].includes(req.method) && hasBody(req) && !JSON_TYPE.test(req.headers['content-type'] ?? '')) {
    next(new BorderdError(415, 'unsupported_media_type', 'request bodies must be JSON: send Content-Type: application/json'));
    return;
  }
  next();
}

/** Maps body-parser's errors (most carry a `type`) and the router's to problems; anything unknown is a 500. */
/**
 * 5xx answers that are refusals working as configured, not failures: a warning per sender per
 * interval with a count (RefusalLog), never an error with a stack per request.
 */
const EXPECTED_REFUSALS: ReadonlySet<string> = new Set([SENDER_CHECK_REQUIRED]);

function toBorderdError(err: unknown, limit: number): BorderdError | undefined {
  if (err instanceof BorderdError) return err;
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') {
    // The limit the parser had: a route may have a smaller one than server.bodyLimitBytes.
    const applied = (err as { limit?: unknown }).limit;
    return new BorderdError(413, 'body_too_large', `request body exceeds ${typeof applied === 'number' ? applied : limit} bytes`);
  }
  if (type === 'entity.parse.failed') return new BorderdError(400, 'malformed_json', 'request body is not valid JSON');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new BorderdError(415, 'unsupported_media_type', 'request body must be UTF-8 JSON');
  }
  if (type === 'request.aborted') return new BorderdError(400, 'request_aborted', 'the request body was not received in full');
  // A body that does not decode as its Content-Encoding says (gzip, deflate, br): body-parser passes
  // zlib's own error on, with no type but status 400 and expose, so it is the caller's mistake.
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  if (status === 400 && expose === true) {
    return new BorderdError(400, 'malformed_body', 'the request body could not be decoded: it does not match its Content-Encoding');
  }
  // The router decodes path parameters while matching and throws a URIError for a bad escape (%E0%A4%A):
  // the caller's mistake, not ours.
  if (err instanceof URIError) return new BorderdError(400, 'malformed_path', 'the path is not valid percent-encoding (UTF-8)');
  // The busy timeout ran out behind another process's write (a CLI import, another daemon):
  // the same request can succeed a moment later, so say so instead of an internal error.
  if (isDatabaseBusy(err)) {
    return new BorderdError(503, 'database_busy', 'the database is busy with another writer; retry the request', {
      headers: { 'Retry-After': '1' },
    });
  }
  // PostgreSQL ended the request's transaction to break a deadlock (or could not serialize it) on
  // every run: it rolled back whole, so the same request can be retried.
  if (isTransientConflict(err)) {
    return new BorderdError(
      503,
      'database_conflict',
      "the database ended this request's transaction in a conflict with another; nothing was written; retry the request",
      { headers: { 'Retry-After': '1' } },
    );
  }
  // The database server is out of reach (restarting, a network cut): nothing of this request was
  // committed, and the pool reconnects on its own, so the same request can be retried.
  if (isDatabaseUnavailable(err)) {
    return new BorderdError(503, 'database_unavailable', 'the database cannot be reached right now; retry the request', {
      headers: { 'Retry-After': '1' },
    });
  }
  return undefined;
}

/**
 * Runs route handlers in order, as the router does: an error passed on or thrown, or the end of the
 * chain, goes on to the app's next layer (the error handler for an error).
 */
function runChain(chain: ReturnType<typeof routeChain>, req: Request, res: Response, done: NextFunction): void {
  let i = 0;
  const next = (err?: unknown): void => {
    if (err || i === chain.length) {
      done(err);
      return;
    }
    try {
      chain[i++]!(req, res, next);
    } catch (thrown) {
      done(thrown);
    }
  };
  next();
}

/** Whether the express path `pattern` (segments like `:id` match any one segment) matches the fixed `path`. */
function segmentsMatch(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.split('/');
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}

export interface BuiltApp {
  app: express.Express;
  registry: ApiRegistry;
}

/**
 * Without `reads`, the offloaded reads run inline on ctx.db (tests, in-memory databases); without
 * `signatures`, the app has event signatures of its own (a process without a dispatcher).
 */
export function createApp(
  given: Omit<ApiDeps, 'reads' | 'signatures'> & Partial<Pick<ApiDeps, 'reads' | 'signatures'>>,
  modules: RouteModule[] = routeModules,
): BuiltApp {
  const deps: ApiDeps = {
    ...given,
    reads: given.reads ?? inlineReads(given.ctx.db, readQueries),
    signatures: given.signatures ?? new EventSignatures(given.ctx),
  };
  const { ctx } = deps;
  const limit = ctx.config.server.bodyLimitBytes;
  const registry = new ApiRegistry();
  for (const register of modules) register(registry, deps);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.server.trustProxy);
  app.set('etag', false);
  app.use(requestContext(ctx.log, ctx.signals.requestAnswered));
  if (tracingOn()) app.use(traceRequests);
  app.use(CONSOLE_PATH, consoleFiles());
  app.use(inboundSenderGate(ctx)); // card-network sender check before any body handling (docs/inbound.md)
  app.use(requireJson);
  // Run by each route after its authentication (routeChain), not for every request: a body is read
  // and parsed only for a caller the route accepts, so an unauthenticated flood of large or deeply
  // nested JSON costs a 401, not a parse each.
  const parsers = new Map<number, Middleware>();
  const parseJson = (bytes: number): Middleware => {
    let parser = parsers.get(bytes);
    if (!parser) {
      parser = express.json({
        limit: bytes,
        type: (req) => JSON_TYPE.test(req.headers['content-type'] ?? ''),
        verify: (req, _res, buf, charset) => {
          req.rawBody = buf;
          req.rawBodyCharset = charset;
        },
      });
      parsers.set(bytes, parser);
    }
    return parser;
  };

  const router = express.Router();
  const authenticate = authenticator(deps.tokens, deps.adminToken);
  let openapi: unknown;
  router.get('/openapi.json', (_req, res) => {
    openapi ??= buildOpenApi(registry.routes, VERSION);
    res.json(openapi);
  });
  // A known path with a method it does not have is 405 with Allow; anything else falls to 404.
  const methodsByPath = new Map<string, Set<string>>();
  const expressPaths = registry.routes.map((spec) => toExpressPath(spec.path));
  for (const [i, spec] of registry.routes.entries()) {
    const path = expressPaths[i]!;
    if (!methodsByPath.has(path)) methodsByPath.set(path, new Set());
    methodsByPath.get(path)!.add(spec.method.toUpperCase());
    if (spec.method === 'get') methodsByPath.get(path)!.add('HEAD');
  }
  const methodNotAllowed = (methods: Set<string>) => (req: Request, res: Response, next: NextFunction) => {
    if (methods.has(req.method)) {
      next();
      return;
    }
    const allow = [...methods].join(', ');
    res.setHeader('Allow', allow);
    sendProblem(res, new BorderdError(405, 'method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}`));
  };
  // A fixed path that a parameter route also matches is checked before any route: its other methods
  // are a 405 there, not taken by the parameter route (PATCH …/settings/public-key is not a webhook
  // id). Every other 405 check comes after the routes, so a request to a route passes none of them.
  const paths = [...methodsByPath.keys()];
  const early = new Set(
    paths.filter((path) => !path.includes(':') && paths.some((other) => other.includes(':') && segmentsMatch(other, path))),
  );
  for (const path of early) router.all(path, methodNotAllowed(methodsByPath.get(path)!));
  const commit = createGroupCommit(ctx.db, ctx.config.database.groupCommitWindowMs, ctx.config.database.busyTimeoutMs, (writes) =>
    ctx.signals.groupCommitted.emit(writes),
  );
  const exact = new Map<string, ReturnType<typeof routeChain>>();
  for (const [i, spec] of registry.routes.entries()) {
    const path = expressPaths[i]!;
    const chain = routeChain(spec, path, authenticate, parseJson(Math.min(spec.bodyLimitBytes ?? limit, limit)), ctx, commit);
    router[spec.method](path, ...chain);
    // The router tries its layers in order, each a regular expression; a path without parameters
    // can be found by its exact text instead, unless an earlier route of the same method also
    // matches it (the router would take that one).
    const shadowed = registry.routes.slice(0, i).some((other, j) => other.method === spec.method && segmentsMatch(expressPaths[j]!, path));
    if (!path.includes(':') && !shadowed) exact.set(`${spec.method.toUpperCase()} ${path}`, chain);
  }
  for (const [path, methods] of methodsByPath) if (!early.has(path)) router.all(path, methodNotAllowed(methods));
  // Exactly the route the router would pick, found by the method and the path as sent. Any other
  // spelling (a trailing slash, other letter case, HEAD for a GET route) falls to the router, as
  // does every path with parameters.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const chain = exact.get(`${req.method} ${req.path}`);
    if (chain) runChain(chain, req, res, next);
    else next();
  });
  app.use(router);

  app.use((req: Request, res: Response) => {
    sendProblem(res, new BorderdError(404, 'route_not_found', `no route ${req.method} ${req.path}`));
  });
  const refusals = new RefusalLog(ctx.log, ctx.clock);
  const storage = storageWatch(ctx);
  // Express recognises error handlers by their four parameters.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // A full database or disk is one incident, said once by the watch, not an error per request.
    if (isStorageFull(err)) {
      storage.refused(err);
      sendProblem(res, storageFull());
      return;
    }
    const known = toBorderdError(err, limit);
    if (known) {
      if (EXPECTED_REFUSALS.has(known.code)) {
        const sender = req.ip ?? req.socket.remoteAddress ?? 'unknown';
        refusals.note(
          `${known.code} ${sender}`,
          { code: known.code, status: known.status, sender, path: req.path },
          `refused: ${known.message}`,
        );
      } else if (known.status >= 500) ctx.log.error({ err, requestId: res.locals.requestId }, 'request failed');
      sendProblem(res, known);
      return;
    }
    ctx.log.error({ err, requestId: res.locals.requestId, method: req.method, path: req.path }, 'unexpected error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(
      res,
      new BorderdError(
        500,
        'internal_error',
        `an unexpected error occurred; quote request id ${String(res.locals.requestId)} when reporting it`,
      ),
    );
  });
  return { app, registry };
}

/**
 * One declaration per route: method, path, auth, the zod schemas of its input and output, and the
 * handler. The same declaration validates requests and produces /openapi.json, so the document
 * cannot drift from what the server accepts.
 *
 * @module api/route
 */
import type { Request, Response, NextFunction } from 'express';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { badRequest, type FieldError } from '../domain/errors.js';
import { zodIssuesToFieldErrors } from '../domain/field-errors.js';
import { illFormedTextPath, maySpellSurrogate } from '../domain/well-formed-text.js';
import './raw-body.js';
import type { Commit } from '../db/group-commit.js';
import type { Reads } from '../db/read-pool.js';
import type { EventSignatures } from '../delivery/event-signatures.js';
import type { OffloadedReads } from '../services/offloaded-reads.js';
import type { AuthContext, TokenService } from '../services/tokens.js';
import { REPLAYED_HEADER, keyedRequest, runKeyed, takesIdempotencyKey, type Answer } from './idempotency.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type AuthMode = 'bearer' | 'admin' | 'none';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface Deprecation {
  /** ISO date the route was deprecated (Deprecation header, RFC 9745). */
  since: string;
  /** ISO date after which it may be removed (Sunset header, RFC 8594). */
  sunset?: string;
  /** The route to use instead (Link rel="successor-version"). */
  successor?: string;
}

export interface Reply {
  status?: number;
  /** Sent as JSON; a JsonText is sent as the text it already is. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A JSON body already serialized by the handler (a hot route that splices stored JSON instead of parsing it). */
export class JsonText {
  constructor(readonly text: string) {}
}

export interface HandlerInput<B, Q, P> {
  /**
   * The context to work with: on a `groupCommit: true` route its `db` is the shared transaction the
   * handler's writes commit in; elsewhere the daemon's own.
   */
  ctx: AppContext;
  body: B;
  query: Q;
  params: P;
  /** Set on bearer routes: the verified organization, client and piiAccess. */
  auth: AuthContext;
  req: Request;
  res: Response;
  /**
   * The database's group commit, for a handler that must await something (a key pair made off the
   * main thread) before its write: the write then shares a batch, and a write lock held by another
   * process is waited for on a timer, never in SQLite's busy wait. A `groupCommit: true` route is
   * already inside it.
   */
  commit: Commit;
}

/** A handler's input: what `HandlerInput` gives, and what the route's `prepare` made (undefined without one). */
export type PreparedInput<B, Q, P, X> = HandlerInput<B, Q, P> & { prepared: X };

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What every route declares besides its handler. */
export interface RouteShape<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
> {
  method: HttpMethod;
  /** OpenAPI-style path: /v1/accounts/{id}. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: AuthMode;
  body?: B;
  query?: Q;
  params?: P;
  responses: Record<number, ResponseSpec>;
  deprecated?: Deprecation;
  /** A smaller body limit than server.bodyLimitBytes, for a route read before any authentication. */
  bodyLimitBytes?: number;
}

type Handler<B, Q, P, X, R> = (input: PreparedInput<Infer<B>, Infer<Q>, Infer<P>, X>) => R;

/**
 * A route's handler. With `groupCommit: true` it is a write run in the database's group commit
 * (src/db/group-commit.ts), sharing one transaction and one fsync with the writes that arrive with
 * it, on the `ctx` it is given: it waits on nothing but that transaction, since the batch's other
 * writes wait for it. A POST sent with an Idempotency-Key runs its handler in a transaction too
 * (api/idempotency.ts), so what a write must await first (a key pair made off the main thread) is
 * made by `prepare`, which runs before any transaction opens (and not at all for a replayed
 * answer); the handler gets its result as `prepared`. Return a Reply (sent as JSON), or undefined
 * after writing the response yourself (streams).
 */
export type RouteSpec<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
  X = undefined,
> = RouteShape<B, Q, P> & { prepare?: (input: HandlerInput<Infer<B>, Infer<Q>, Infer<P>>) => Promise<X> } & (
    | { groupCommit: true; handler: Handler<B, Q, P, X, Promise<Reply | undefined>> }
    | { groupCommit?: false; handler: Handler<B, Q, P, X, Promise<Reply | undefined> | Reply | undefined> }
  );

// Route specs are stored with their generics erased; `route()` keeps them checked at declaration.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRouteSpec = RouteSpec<any, any, any, any>;

export interface ApiDeps {
  ctx: AppContext;
  tokens: TokenService;
  adminToken: string;
  /** The reads that may run off the main thread; inline on ctx.db unless the daemon gives its read workers. */
  reads: Reads<OffloadedReads>;
  /** The process's event signatures, shared with its dispatcher. */
  signatures: EventSignatures;
}

/** A feature's routes: a function that declares them on the registry. */
export type RouteModule = (api: ApiRegistry, deps: ApiDeps) => void;

export class ApiRegistry {
  readonly routes: AnyRouteSpec[] = [];
  route<
    B extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
    P extends z.ZodType | undefined = undefined,
    X = undefined,
  >(spec: RouteSpec<B, Q, P, X>): void {
    this.routes.push(spec as AnyRouteSpec);
  }
}

export const toExpressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

function parsePart(schema: z.ZodType | undefined, value: unknown, location: string, errors: FieldError[]): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  errors.push(...zodIssuesToFieldErrors(result.error, location));
  return undefined;
}

/**
 * A JsonText body with the headers res.json would send. It skips res.send's content-type parsing
 * and mime lookups, which a hot list route would pay on every request; nothing else of res.send
 * applies here (ETags are off, the status is never 204 or 304, and Node sends no body for HEAD).
 */
function sendJsonText(res: Response, text: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * The body or query of a route that declares none: nothing (or an empty body object); a field or
 * parameter sent there is refused like any unknown field.
 */
const NO_FIELDS = z.strictObject({});
const hasQuery = (req: Request): boolean => req.originalUrl.includes('?') && Object.keys(req.query).length > 0;

function imfDate(iso: string): string {
  return new Date(iso).toUTCString();
}

/** A handler's reply as an idempotency key keeps it: its body as the JSON text it is sent as. */
function answerOf(reply: Reply | undefined): Answer | undefined {
  if (reply === undefined) return undefined;
  const body = reply.body === undefined ? null : reply.body instanceof JsonText ? reply.body.text : JSON.stringify(reply.body);
  return { status: reply.status ?? 200, headers: reply.headers ?? {}, body };
}

export function deprecationHeaders(d: Deprecation): Record<string, string> {
  const headers: Record<string, string> = { Deprecation: `@${Math.floor(Date.parse(d.since) / 1000)}` };
  if (d.sunset) headers.Sunset = imfDate(d.sunset);
  if (d.successor) headers.Link = `<${d.successor}>; rel="successor-version"`;
  return headers;
}

export type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The handlers a route runs, in order: its deprecation headers (before authentication, so every
 * answer of a deprecated route says so, a 401 included: a caller whose token expired learns of the
 * sunset too), authentication, reading the body, then validation and the handler. The first one
 * names the route (`route`, its express path) for the request's log line. A POST sent with an
 * Idempotency-Key runs its handler in the transaction that keeps its answer (api/idempotency.ts).
 */
export function routeChain(
  spec: AnyRouteSpec,
  route: string,
  authenticate: (mode: AuthMode) => Middleware,
  parseBody: Middleware,
  ctx: AppContext,
  commit: Commit,
): Middleware[] {
  const takesKey = takesIdempotencyKey(spec);
  const handle = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const keyed = takesKey ? keyedRequest(req, res.locals.auth as AuthContext | undefined) : undefined;
      const errors: FieldError[] = [];
      const params = parsePart(spec.params, req.params, 'params', errors);
      const query = parsePart(spec.query, req.query, 'query', errors);
      const body = parsePart(spec.body, req.body ?? {}, 'body', errors);
      // No body (every GET) needs no parse; only a body sent to a route that takes none is checked.
      if (!spec.body && req.body !== undefined) parsePart(NO_FIELDS, req.body, 'body', errors);
      // Likewise a query parameter sent to an API route that takes none (`?limit=1` on a list that does
      // not page). Routes without credentials (health, token, card network) are called by load
      // balancers and other parties whose conventions borderd does not set: their query is ignored.
      if (!spec.query && spec.auth !== 'none' && hasQuery(req)) parsePart(NO_FIELDS, req.query, 'query', errors);
      if (errors.length)
        throw badRequest(
          'validation_failed',
          `${errors.length} field(s) failed validation: ${errors.map((e) => e.path).join(', ')}`,
          errors,
        );
      // What the route takes (its schema's output: fields a route keeps without knowing them are not
      // checked) must be text that can be stored as sent. A UTF-8 body is walked only when its bytes
      // spell a surrogate escape; one in another charset (the parser decodes UTF-16 and others),
      // whose bytes the scan cannot read, always is.
      const mayHoldSurrogate = req.rawBody !== undefined && (req.rawBodyCharset !== 'utf-8' || maySpellSurrogate(req.rawBody));
      const illFormed = mayHoldSurrogate ? illFormedTextPath(body, 'body') : undefined;
      if (illFormed)
        throw badRequest('validation_failed', `${illFormed} is not valid Unicode text`, [
          { path: illFormed, message: 'holds a lone surrogate (\\ud800 to \\udfff without its pair), which cannot be stored as text' },
        ]);
      const input = { ctx, body, query, params, auth: res.locals.auth as AuthContext, req, res, commit };
      if (keyed) {
        const prepare = async (): Promise<unknown> => (spec.prepare ? await spec.prepare(input) : undefined);
        // The whole handler runs in the transaction that keeps its answer: its own transactions are savepoints of it.
        const { answer, replayed } = await runKeyed(ctx, commit, keyed, prepare, async (tx, inTx, prepared) =>
          answerOf(await spec.handler({ ...input, ctx: { ...ctx, db: tx }, commit: inTx, prepared })),
        );
        if (answer === undefined) return;
        if (replayed) res.setHeader(REPLAYED_HEADER, 'true');
        res.set(answer.headers);
        res.status(answer.status);
        if (answer.body === null) res.end();
        else sendJsonText(res, answer.body);
        return;
      }
      const prepared: unknown = spec.prepare ? await spec.prepare(input) : undefined;
      const reply = await (spec.groupCommit
        ? commit((tx) => spec.handler({ ...input, ctx: { ...ctx, db: tx }, prepared }))
        : spec.handler({ ...input, prepared }));
      if (reply === undefined) return;
      if (reply.headers) res.set(reply.headers);
      res.status(reply.status ?? 200);
      if (reply.body === undefined) res.end();
      else if (reply.body instanceof JsonText) sendJsonText(res, reply.body.text);
      else res.json(reply.body);
    } catch (err) {
      next(err);
    }
  };
  const headers = spec.deprecated ? deprecationHeaders(spec.deprecated) : undefined;
  const announce: Middleware = (_req, res, next) => {
    res.locals.route = route;
    if (headers) res.set(headers);
    next();
  };
  return [announce, authenticate(spec.auth), parseBody, handle];
}

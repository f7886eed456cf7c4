/**
 * Builds the OpenAPI 3.1 document from the route declarations (the same schemas that validate).
 *
 * @module api/openapi
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { deliveryWebhook } from './delivery-headers.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_KEY_PATTERN,
  REPLAYED_HEADER,
  takesIdempotencyKey,
} from './idempotency.js';
import type { AnyRouteSpec } from './route.js';

/** The document's named shapes: a schema declared with an `id` (`.meta({ id })`), by that id. */
type Shapes = Record<string, unknown>;

const DEFS_REF = /^#\/\$defs\//;

/** `value` with every reference to a named shape pointing at components.schemas, where the document keeps it. */
function toComponents(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponents);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' ? v.replace(DEFS_REF, '#/components/schemas/') : toComponents(v),
    ]),
  );
}

/**
 * A schema as JSON Schema. The shapes it names (zod puts them under `$defs`) go to `shapes` once, so
 * each stands once in the document and every use refers to it; one name given to two different
 * shapes is a mistake in the declarations, refused here.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', shapes: Shapes): unknown {
  const { $defs, ...js } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    // A parameter described as an integer (query-params.ts) keeps no string keyword of the text it is
    // parsed from, and gets its default, which zod leaves out of an input schema whose input is text.
    override: ({ zodSchema, jsonSchema: js }) => {
      if (js.type !== 'integer') return;
      delete js.pattern;
      const def = zodSchema._zod.def;
      if (def.type === 'default' && typeof def.defaultValue === 'number') js.default = def.defaultValue;
    },
  });
  for (const [id, def] of Object.entries($defs ?? {})) {
    const shape = toComponents(def);
    if (id in shapes && !isDeepStrictEqual(shapes[id], shape)) throw new Error(`two different shapes are named ${id}`);
    shapes[id] = shape;
  }
  return toComponents(js);
}

function parameters(spec: AnyRouteSpec, shapes: Shapes): unknown[] {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', spec.params],
    ['query', spec.query],
  ] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema as z.ZodType, 'input', shapes) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: prop });
    }
  }
  return out;
}

const PROBLEM_CONTENT = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

const IDEMPOTENCY_KEY_PARAMETER = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description:
    'A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for ' +
    `server.idempotencyKeyHours (24 by default) and sent again, with \`${REPLAYED_HEADER}: true\`, to a repeat with the same key, ` +
    'method, path and body, which does not run again. Keys are per caller (client, or operator).',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: IDEMPOTENCY_KEY_PATTERN },
};

/** The answers a keyed request can get besides its route's own; a route's own description of the status comes first. */
const IDEMPOTENCY_RESPONSES: Record<string, string> = {
  400: `a malformed ${IDEMPOTENCY_KEY_HEADER} (invalid_idempotency_key)`,
  409: `the first request with this ${IDEMPOTENCY_KEY_HEADER} is still running (idempotency_key_in_use, with Retry-After)`,
  422: `this ${IDEMPOTENCY_KEY_HEADER} was used with another request (idempotency_key_reused)`,
};

export function buildOpenApi(routes: AnyRouteSpec[], version: string): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  const shapes: Shapes = {};
  for (const spec of routes) {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      if (r.schema)
        responses[status] = {
          description: r.description,
          content: { [r.contentType ?? 'application/json']: { schema: jsonSchema(r.schema, 'output', shapes) } },
        };
      // A declared error status replaces `default` for that status: it keeps the problem body every error has.
      else if (Number(status) >= 400) responses[status] = { description: r.description, content: PROBLEM_CONTENT };
      else responses[status] = { description: r.description };
    }
    const keyed = takesIdempotencyKey(spec);
    if (keyed) {
      for (const [status, description] of Object.entries(IDEMPOTENCY_RESPONSES)) {
        const own = responses[status] as { description: string } | undefined;
        responses[status] = { description: own ? `${own.description}; or ${description}` : description, content: PROBLEM_CONTENT };
      }
    }
    responses.default = { description: 'Problem details (RFC 9457)', content: PROBLEM_CONTENT };
    const op: Record<string, unknown> = {
      summary: spec.summary,
      operationId: `${spec.method}${spec.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      tags: spec.tags ?? [],
      parameters: keyed ? [...parameters(spec, shapes), IDEMPOTENCY_KEY_PARAMETER] : parameters(spec, shapes),
      responses,
    };
    if (spec.description) op.description = spec.description;
    if (spec.deprecated) op.deprecated = true;
    if (spec.auth === 'bearer') op.security = [{ bearer: [] }];
    else if (spec.auth === 'admin') op.security = [{ admin: [] }];
    else op.security = [];
    if (spec.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input', shapes) } } };
    }
    (paths[spec.path] ??= {})[spec.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'borderd', version, description: 'Cross-border payments API with signed webhook delivery.' },
    paths,
    webhooks: deliveryWebhook,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /v1/auth/m2m/token' },
        admin: { type: 'http', scheme: 'bearer', description: 'Operator token (admin.token) for /admin/v1' },
      },
      schemas: {
        ...shapes,
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'code'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string' },
            instance: { type: 'string' },
            requestId: { type: 'string' },
            errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
          },
        },
      },
    },
  };
}

/**
 * @module scripts/console-types
 * `npm run console:types`: writes console/src/api-types.ts, the console's types of the API, generated
 * by openapi-typescript from borderd's own OpenAPI document: the one /openapi.json serves with the
 * default configuration (src/api/openapi.ts over every route module), built in this process on a
 * throwaway database, without a server. The event types and delivery states the console lists come
 * from the same document, so nothing in the console restates a server shape. It runs on the compiled
 * daemon (dist/), which `npm run console:types` builds first; a test keeps the committed file current.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';

export const CONSOLE_TYPES = fileURLToPath(new URL('../console/src/api-types.ts', import.meta.url));

/** The document's lists the console offers as choices: each a named enum of components.schemas, as a constant. */
const LISTS = [
  ['EVENT_TYPES', 'EventType', 'Every event type, for the filters and the test event form.'],
  ['DELIVERY_STATES', 'DeliveryState', "Every state of a delivery, for the deliveries' filter."],
  ['INBOUND_STATES', 'InboundState', "Every state of a card-network notification, for the operator's filter."],
];

/** The text of console/src/api-types.ts for an OpenAPI document, formatted as the repository formats TypeScript. */
export async function renderConsoleTypes(built) {
  // The document as /openapi.json sends it: JSON, without the fields a build leaves undefined.
  const doc = JSON.parse(JSON.stringify(built));
  const schemas = doc.components?.schemas ?? {};
  const lists = LISTS.map(([name, shape, what]) => {
    const values = schemas[shape]?.enum;
    if (!Array.isArray(values)) throw new Error(`the OpenAPI document has no enum components.schemas.${shape}`);
    return `/** ${what} */\nexport const ${name} = ${JSON.stringify(values)} as const satisfies readonly components['schemas']['${shape}'][];\n`;
  });
  const text = [
    '/**',
    " * The API's shapes as /openapi.json describes them, generated from src/api/openapi.ts by",
    ' * `npm run console:types` (scripts/console-types.mjs, openapi-typescript). Do not edit: change the',
    " * route's schema and generate again.",
    ' *',
    ' * @module console/api-types',
    ' */',
    astToString(await openapiTS(doc, { alphabetize: false })),
    ...lists,
  ].join('\n');
  const options = await resolveConfig(CONSOLE_TYPES);
  return await format(text, { ...options, filepath: CONSOLE_TYPES });
}

/** The document the daemon serves at /openapi.json with the default configuration, from dist/. */
async function servedDocument() {
  const dist = (path) => import(new URL(`../dist/src/${path}`, import.meta.url).href);
  const [{ loadConfig }, { createContext }, { createApp }, { buildOpenApi }, { TokenService }, { VERSION }] = await Promise.all([
    dist('config/load.js'),
    dist('create-context.js'),
    dist('api/app.js'),
    dist('api/openapi.js'),
    dist('services/tokens.js'),
    dist('version.js'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'borderd-console-types-'));
  try {
    const flags = { 'database.path': join(dir, 'borderd.db'), dataDir: dir, 'log.level': 'error' };
    const ctx = await createContext(loadConfig({ env: {}, flags }));
    try {
      const { registry } = createApp({ ctx, tokens: new TokenService(ctx), adminToken: 'console-types' });
      return buildOpenApi(registry.routes, VERSION);
    } finally {
      await ctx.db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(CONSOLE_TYPES, await renderConsoleTypes(await servedDocument()));
  console.log(`console:types: wrote ${CONSOLE_TYPES}`);
}

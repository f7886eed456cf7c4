import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DELIVERY_STATES as CONSOLE_DELIVERY_STATES, EVENT_TYPES as CONSOLE_EVENT_TYPES } from '../../console/src/generated/api-types.js';
import { CONSOLE_TYPES, renderConsoleTypes } from '../../scripts/console-types.mjs';
import { DELIVERY_STATES } from '../../src/store/deliveries.js';
import { EVENT_TYPES } from '../../src/verify/events.js';
import { buildOpenApi } from '../../src/api/openapi.js';
import { VERSION } from '../../src/version.js';
import { makeApi, makeContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';

/**
 * The console's types are generated from /openapi.json (npm run console:types); the committed file
 * must be what the document served now generates, or the console reads shapes the server no longer has.
 */
describe("the console's types", () => {
  // The document does not depend on the database: once, on SQLite. Generating and formatting the
  // whole API's types takes seconds, past the fast loop's default limit.
  it.skipIf(onPostgres)(
    'are what the /openapi.json the daemon serves generates',
    async () => {
      // What app.ts serves at /openapi.json, built the same way, without a socket.
      const doc = buildOpenApi(makeApi(await makeContext()).registry.routes, VERSION);
      const committed = readFileSync(CONSOLE_TYPES, 'utf8');
      expect(committed, 'console/src/generated/api-types.ts is not current: run `npm run console:types`').toBe(
        await renderConsoleTypes(doc),
      );
    },
    60_000,
  );

  it("list the server's event types and delivery states, in its order", () => {
    expect(CONSOLE_EVENT_TYPES).toEqual(EVENT_TYPES);
    expect(CONSOLE_DELIVERY_STATES).toEqual(DELIVERY_STATES);
  });
});

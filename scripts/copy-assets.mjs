// tsc compiles TypeScript only; the SQL migrations ship next to the compiled migrate.js.
import { cpSync } from 'node:fs';
cpSync(new URL('../src/db/migrations', import.meta.url), new URL('../dist/src/db/migrations', import.meta.url), {
  recursive: true,
  filter: (src) => !src.includes('.') || src.endsWith('.sql'),
});

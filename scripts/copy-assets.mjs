// tsc compiles TypeScript only; the SQL migrations ship next to the compiled migrate.js, and the
// console's page and stylesheet next to its compiled scripts.
import { cpSync } from 'node:fs';
cpSync(new URL('../src/db/migrations', import.meta.url), new URL('../dist/src/db/migrations', import.meta.url), {
  recursive: true,
  filter: (src) => !src.includes('.') || src.endsWith('.sql'),
});
for (const file of ['index.html', 'console.css'])
  cpSync(new URL(`../console/${file}`, import.meta.url), new URL(`../dist/console/${file}`, import.meta.url));

/**
 * Preloaded into a `borderd` process (NODE_OPTIONS=--import): when it exits, writes the names of the
 * CommonJS packages it loaded, one a line, to the file BORDERD_TEST_LOADED_PACKAGES names, so a test
 * can say which dependencies a command pays for.
 *
 * @module test/support/loaded-packages
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const names = new Set();
  for (const file of Object.keys(cache)) {
    const name = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file)?.[1];
    if (name !== undefined) names.add(name.replace('\\', '/'));
  }
  writeFileSync(process.env.BORDERD_TEST_LOADED_PACKAGES, [...names].sort().join('\n'));
});

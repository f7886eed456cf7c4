/**
 * How the person reading a hint runs borderd from where they are: `borderd` when it is on the PATH
 * (npm link, a global install, the Docker image), `npx borderd` in the package's own folder (what
 * `npm ci` gives), else node and the entry's path.
 *
 * @module cli/command-name
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { PACKAGE_ROOT } from '../version.js';

export function borderdCommand(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'borderd'), constants.X_OK);
      return 'borderd';
    } catch {
      // not in this directory
    }
  }
  if (relative(cwd, PACKAGE_ROOT) === '') return 'npx borderd';
  return `node ${join(PACKAGE_ROOT, 'bin', 'borderd.js')}`;
}

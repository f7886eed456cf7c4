/**
 * The package's root folder and version, found from where this file is (src/ or dist/src/).
 *
 * @module version
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest folder above this file with borderd's package.json (src/ or dist/src/). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'borderd') return dir;
    dir = dirname(dir);
  }
  throw new Error('cannot find borderd package.json');
}

export const PACKAGE_ROOT = findPackageRoot();

/** The package version, read once; used in user-agent, OpenAPI and `--version`. */
export const VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

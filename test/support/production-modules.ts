import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './process.js';

/**
 * node_modules as an install of borderd's production dependencies leaves it (what `npm prune
 * --omit=dev` keeps, and what an integrator's `npm install borderd` brings): only the packages
 * `npm ls --omit=dev` lists, copied under `to`. Returns their paths relative to the root.
 */
export function copyProductionModules(to: string): string[] {
  const res = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' });
  expect(res.status, res.stderr).toBe(0);
  const packages = res.stdout
    .split('\n')
    .filter((p) => p.startsWith(join(ROOT, 'node_modules')))
    .map((p) => relative(ROOT, p));
  for (const pkg of packages) {
    const nested = join(ROOT, pkg, 'node_modules');
    cpSync(join(ROOT, pkg), join(to, pkg), { recursive: true, filter: (src) => src !== nested });
  }
  return packages;
}

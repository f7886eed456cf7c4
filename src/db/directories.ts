/**
 * Creates a directory and its missing parents, one level at a time. node's recursive mkdirSync
 * loops forever at full CPU under a directory where nothing can be created and every parent
 * "exists" in its own way (/proc/nope): here each level is created once, and the first refusal is
 * thrown as it is.
 *
 * @module db/directories
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Makes `dir` (and its missing parents) with `mode`; throws the first error met, naming its path. */
export function makeDirectories(dir: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    try {
      if (!statSync(at).isDirectory()) throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const at of missing) {
    try {
      mkdirSync(at, { mode });
    } catch (err) {
      // Another process made it meanwhile: as good as made here.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

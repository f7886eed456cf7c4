import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/process.js';

interface Manifest {
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
  scripts: Record<string, string>;
}

/**
 * What `npm pack` (and so `npm publish`) puts in the tarball: every file `exports` and `bin` name
 * must be in it, or an integrator's `import('borderd/verify')` fails with ERR_MODULE_NOT_FOUND.
 * dist/ is not committed, so the pack must build it first (prepack). The listing is taken without
 * running scripts: the suite's own build (pretest) made dist/, and rebuilding it here would rewrite
 * files other tests are running.
 */
describe('the published package', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

  it('builds before it is packed', () => {
    expect(manifest.scripts.prepack).toBe('npm run build');
  });

  it('ships every file its exports and bin point at', () => {
    const res = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(res.status, res.stderr).toBe(0);
    const packed = new Set((JSON.parse(res.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
    const targets = [
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((t) => (typeof t === 'string' ? [t] : [t.types, t.default])),
    ].map((t) => t.replace(/^\.\//, ''));
    expect(targets).toContain('dist/src/verify/index.js');
    for (const target of targets) expect(packed.has(target), target).toBe(true);
    // Tests, sources and benchmarks stay out of it.
    expect([...packed].filter((p) => /^(test|src|bench|dist\/test|dist\/bench)\//.test(p))).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { ROOT } from '../support/process.js';
import { copyProductionModules } from '../support/production-modules.js';

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

describe('the published type declarations', () => {
  it('compile for a strict consumer (skipLibCheck off) that installed borderd and nothing else but @types/node', () => {
    const res = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(res.status, res.stderr).toBe(0);
    const project = tempDir('borderd-consumer-');
    const installed = join(project, 'node_modules', 'borderd');
    for (const { path } of (JSON.parse(res.stdout) as { files: { path: string }[] }[])[0]!.files) {
      mkdirSync(dirname(join(installed, path)), { recursive: true });
      cpSync(join(ROOT, path), join(installed, path));
    }
    // What `npm install borderd` brings along, and the consumer's own @types/node.
    copyProductionModules(project);
    for (const own of ['@types/node', 'undici-types']) cpSync(join(ROOT, 'node_modules', own), join(project, 'node_modules', own), { recursive: true, force: false });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
    writeFileSync(
      join(project, 'main.ts'),
      [
        "import { createContext, loadConfig, startDaemon, type AppContext, type Config } from 'borderd';",
        "import { verifyWebhook, type AnyWebhookEvent } from 'borderd/verify';",
        'export async function embed(): Promise<AppContext> {',
        '  const config: Config = loadConfig({ env: {}, flags: {} });',
        '  const ctx = createContext(config);',
        '  const daemon = await startDaemon(ctx);',
        '  await daemon.close();',
        '  return ctx;',
        '}',
        'export const check = (body: Buffer, headers: Record<string, string>, key: string): AnyWebhookEvent => verifyWebhook(body, headers, key);',
      ].join('\n'),
    );
    for (const moduleResolution of ['nodenext', 'bundler']) {
      const options = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', module: moduleResolution === 'bundler' ? 'esnext' : 'nodenext', moduleResolution, types: ['node'] };
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['main.ts'] }));
      const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { cwd: project, encoding: 'utf8', timeout: 120_000 });
      expect({ moduleResolution, out: tsc.stdout + tsc.stderr }).toEqual({ moduleResolution, out: '' });
    }
  }, 180_000);
});

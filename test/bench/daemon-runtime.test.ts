import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStartScript, START_RUNTIME } from '../../bench/daemon-process.js';
import { tempDir } from '../support/context.js';
import { dockerEnv } from '../support/dockerfile.js';
import { ROOT } from '../support/process.js';

/** Runs docker/entrypoint.sh with a stand-in `node` first on PATH that prints the arguments it got. */
function entrypointArgs(args: string[]): string[] {
  const dir = tempDir('borderd-entrypoint-');
  writeFileSync(join(dir, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@"\n');
  chmodSync(join(dir, 'node'), 0o755);
  const res = spawnSync('sh', [join(ROOT, 'docker', 'entrypoint.sh'), ...args], {
    env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
    encoding: 'utf8',
  });
  expect(res.status, res.stderr).toBe(0);
  return res.stdout.trim().split('\n');
}

describe('the daemon runtime settings', () => {
  it('reads the environment and node flags of a start script', () => {
    expect(parseStartScript('A_B=1 C=x node --flag=2 --other bin/borderd.js serve')).toEqual({
      env: { A_B: '1', C: 'x' },
      nodeArgs: ['--flag=2', '--other'],
    });
    expect(() => parseStartScript('node dist/other.js serve')).toThrow(/bin\/borderd.js serve/);
    expect(() => parseStartScript('X=1 tsx bin/borderd.js serve')).toThrow(/does not run node/);
  });

  it('are the same in npm start (which the benchmarks use) and the Docker image, where only serve gets the node flags', () => {
    expect(START_RUNTIME.nodeArgs.length + Object.keys(START_RUNTIME.env).length).toBeGreaterThan(0);
    const env = dockerEnv();
    for (const [k, v] of Object.entries(START_RUNTIME.env)) expect(env[k], k).toBe(v);
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(entrypointArgs(['serve', '--port', '8080'])).toEqual([
      ...START_RUNTIME.nodeArgs,
      '/app/bin/borderd.js',
      'serve',
      '--port',
      '8080',
    ]);
    expect(entrypointArgs([])).toEqual([...START_RUNTIME.nodeArgs, '/app/bin/borderd.js', 'serve']);
    expect(entrypointArgs(['import', 'transactions', 'a b.csv'])).toEqual(['/app/bin/borderd.js', 'import', 'transactions', 'a b.csv']);
  });
});

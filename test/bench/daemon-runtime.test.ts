import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseStartScript, START_RUNTIME } from '../../bench/daemon-process.js';

/** The ENV assignments of the Dockerfile's final stage, continuation lines joined. */
function dockerEnv(): Record<string, string> {
  const text = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8').replace(/\\\n/g, ' ');
  const finalStage = text.slice(text.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const line of finalStage.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const [, k, v] of line.slice(4).matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) env[k!] = v!;
  }
  return env;
}

describe('the daemon runtime settings', () => {
  it('reads the environment and node flags of a start script', () => {
    expect(parseStartScript('A_B=1 C=x node --flag=2 --other bin/borderd.js serve')).toEqual({ env: { A_B: '1', C: 'x' }, nodeArgs: ['--flag=2', '--other'] });
    expect(() => parseStartScript('node dist/other.js serve')).toThrow(/bin\/borderd.js serve/);
    expect(() => parseStartScript('X=1 tsx bin/borderd.js serve')).toThrow(/does not run node/);
  });

  it('are the same in npm start (which the benchmarks use) and the Docker image', () => {
    expect(START_RUNTIME.nodeArgs.length + Object.keys(START_RUNTIME.env).length).toBeGreaterThan(0);
    const env = dockerEnv();
    for (const [k, v] of Object.entries(START_RUNTIME.env)) expect(env[k], k).toBe(v);
    expect((env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)).toEqual(START_RUNTIME.nodeArgs);
  });
});

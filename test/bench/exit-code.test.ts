import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const serverModule = fileURLToPath(new URL('../../dist/bench/postgres-server.js', import.meta.url));

describe('a process that loads the embedded PostgreSQL', () => {
  it('keeps the exit code it set (a test run with failures still fails)', () => {
    const child = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(serverModule)}); process.exitCode = 3;`],
      {
        encoding: 'utf8',
      },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
  });
});

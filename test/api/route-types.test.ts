import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/process.js';

describe('route declarations (types)', () => {
  it('require a groupCommit: true handler to return a promise of a reply, and accept the declarations the API uses', () => {
    // test/types/route-spec.fixture.ts with the project's compiler options; an unused @ts-expect-error fails the compile too.
    const res = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'test', 'types', 'tsconfig.json')],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(`${res.stdout}${res.stderr}`).toBe('');
    expect(res.status).toBe(0);
  });
});

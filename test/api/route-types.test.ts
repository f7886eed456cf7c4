import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/process.js';

describe('route declarations (types)', () => {
  it('require a groupCommit: true handler to return a promise of a reply, and accept the declarations the API uses', async () => {
    // test/types/route-spec.fixture.ts with the project's compiler options; an unused @ts-expect-error fails the compile too.
    // Run without blocking the test worker, which must keep answering vitest through a long compile.
    const res = await new Promise<{ status: number | null; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'test', 'types', 'tsconfig.json')],
        { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
        (err, stdout, stderr) =>
          resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, output: `${stdout}${stderr}` }),
      );
    });
    expect(res.output).toBe('');
    expect(res.status).toBe(0);
  }, 180_000);
});

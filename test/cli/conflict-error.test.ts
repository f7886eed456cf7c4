import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportError } from '../../src/cli/context.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What reportError writes to stderr for `err`, and the exit code it returns. */
function reported(err: unknown): { code: number; stderr: string } {
  let stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  const code = reportError(err, false);
  vi.restoreAllMocks();
  return { code, stderr };
}

describe('a CLI command whose transaction PostgreSQL ended in a conflict', () => {
  it.each([
    ['40P01', 'deadlock detected'],
    ['40001', 'could not serialize access due to concurrent update'],
  ])('SQLSTATE %s: one line that says nothing was written, no stack, exit 1', (sqlstate, message) => {
    const { code, stderr } = reported(Object.assign(new Error(message), { code: sqlstate }));
    expect(code).toBe(1);
    expect(stderr).toBe(
      "borderd: the database ended this command's transaction in a conflict with another; nothing was written; try again\n",
    );
  });
});

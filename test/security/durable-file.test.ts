import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAdminToken } from '../../src/security/admin-token.js';
import { createFileDurably } from '../../src/security/durable-file.js';
import { tempDir } from '../support/context.js';

describe('createFileDurably', () => {
  it('creates the file with its content, mode 0600 and no temporary left beside it', () => {
    const dir = tempDir('borderd-durable-');
    createFileDurably(join(dir, 'secret'), 'abc\n');
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toBe('abc\n');
    expect((statSync(join(dir, 'secret')).mode & 0o777).toString(8)).toBe('600');
    expect(readdirSync(dir)).toEqual(['secret']);
  });

  it('refuses an existing file with EEXIST and leaves it as it was, like the wx flag', () => {
    const dir = tempDir('borderd-durable-');
    writeFileSync(join(dir, 'secret'), 'theirs\n');
    expect(() => createFileDurably(join(dir, 'secret'), 'ours\n')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toBe('theirs\n');
    expect(readdirSync(dir)).toEqual(['secret']);
  });

  it("is how the admin token is made: a second process reads the first one's token", () => {
    const dir = tempDir('borderd-durable-');
    const first = resolveAdminToken(undefined, dir);
    expect(first.created).toBe(true);
    expect(resolveAdminToken(undefined, dir)).toMatchObject({ token: first.token, created: false });
  });
});

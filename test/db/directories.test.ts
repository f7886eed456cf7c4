import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirectories } from '../../src/db/directories.js';
import { tempDir } from '../support/context.js';

describe('makeDirectories', () => {
  it('makes the missing parents with the mode given', () => {
    const dir = join(tempDir(), 'a', 'b', 'c');
    makeDirectories(dir, 0o700);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(join(dir, '..')).mode & 0o777).toBe(0o700);
    makeDirectories(dir, 0o700); // again: nothing to do
  });

  it('throws at once where nothing can be created (under /proc), instead of looping', () => {
    expect(() => makeDirectories('/proc/nope/deeper')).toThrow(/ENOENT|EACCES|EPERM/);
  });

  it('throws when a parent is a file', () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, '');
    expect(() => makeDirectories(join(file, 'x'))).toThrow(/ENOTDIR|not a directory/);
  });
});

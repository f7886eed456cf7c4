/**
 * Creates `file` holding `content`, durably and only if it does not exist (EEXIST otherwise, like
 * the 'wx' flag). The bytes are written and fsynced under a temporary name, then linked to `file`
 * (atomic, and refused if `file` exists), and the directory is fsynced so the name survives a power
 * cut too. For the master key and the admin token: the database fsyncs values sealed under the key
 * right after it is made, and a key file that came back empty after a crash would leave every one
 * of them unreadable.
 *
 * @module security/durable-file
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function createFileDurably(file: string, content: string, mode = 0o600): void {
  const dir = dirname(file);
  const temporary = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } finally {
    unlinkSync(temporary);
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/**
 * The master key that seals secrets at rest: where it comes from, when a new one may be made, and
 * the canary that proves a key opens this database's secrets before anything reads one.
 *
 * @module security/master-key
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { makeDirectories } from '../db/directories.js';
import { dirname } from 'node:path';
import { hasTable, type Db } from '../db/database.js';
import { holdsSealedValues, readServiceMeta, recordServiceMetaOnce } from '../store/service-meta.js';
import { anyTokenKey } from '../store/token-keys.js';
import type { SecretBox } from './secret-box.js';
import { createFileDurably } from './durable-file.js';

/** A master key that cannot be used: start-up stops with this one line (exit code 2). */
export class MasterKeyError extends Error {}

/**
 * The master key encrypts private keys and provider credentials at rest. It comes from config
 * (or BORDERD_MASTER_KEY), else from a key file beside the database, created once with mode 0600.
 * Losing the key file makes the encrypted columns unreadable, so a new one is created only while
 * the database holds nothing sealed (`mayCreate`); otherwise start-up stops and says what to restore.
 */
export function resolveMasterKey(opts: { configured?: string | undefined; file: string; mayCreate?: boolean }): {
  key: Buffer;
  created: boolean;
} {
  if (opts.configured) {
    const key = Buffer.from(opts.configured, 'base64');
    if (key.length !== 32) throw new MasterKeyError('security.masterKey (BORDERD_MASTER_KEY) must be base64 of 32 bytes');
    return { key, created: false };
  }
  if (existsSync(opts.file)) {
    const key = Buffer.from(readFileSync(opts.file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new MasterKeyError(`master key file ${opts.file} does not hold base64 of 32 bytes`);
    return { key, created: false };
  }
  if (opts.mayCreate === false) {
    throw new MasterKeyError(
      `master key file ${opts.file} is missing, and this database holds secrets sealed under a master key: ` +
        'restore the file from your backup, or set BORDERD_MASTER_KEY (security.masterKey) to the key it held',
    );
  }
  makeDirectories(dirname(opts.file));
  const key = randomBytes(32);
  // 'wx' fails if another process created it in between; then we read theirs.
  try {
    createFileDurably(opts.file, key.toString('base64') + '\n');
    chmodSync(opts.file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return resolveMasterKey(opts);
    throw err;
  }
  return { key, created: true };
}

const CHECK_KEY = 'master_key_check';
const wrongKey = (source: string) =>
  new MasterKeyError(
    `the master key from ${source} is not the one this database's secrets are sealed with: use the key it was created with`,
  );
const CHECK_CONTEXT = 'service_meta.master_key_check';

/**
 * Whether a new master key may be created: only for a database that holds nothing sealed. The
 * canary says so for databases made since it exists; an older database is asked directly.
 */
export async function mayCreateMasterKey(db: Db): Promise<boolean> {
  return (await readMasterKeyCheck(db)) === undefined && !(await holdsSealedValues(db));
}

/** The sealed canary, or undefined on a database that has none yet (or predates the table). */
const readMasterKeyCheck = (db: Db): Promise<string | undefined> => readServiceMeta(db, CHECK_KEY);

/**
 * Proves the key opens this database's secrets before anything else reads one: a wrong key stops
 * start-up with a sentence instead of an AES error deep inside the first token request. The first
 * start records the canary (INSERT OR IGNORE: two processes starting together agree on the first).
 */
export async function checkMasterKey(db: Db, box: SecretBox, source: string): Promise<void> {
  let sealed = await readMasterKeyCheck(db);
  if (sealed === undefined && (await hasTable(db, 'service_meta'))) {
    // A database from before the canary: prove the key on a sealed token key before vouching for it.
    const tokenKey = await anyTokenKey(db);
    if (tokenKey) {
      try {
        box.open(tokenKey.private_enc, `token_keys.private:${tokenKey.kid}`);
      } catch {
        throw wrongKey(source);
      }
    }
    await recordServiceMetaOnce(db, CHECK_KEY, box.seal('borderd', CHECK_CONTEXT));
    sealed = await readMasterKeyCheck(db);
  }
  if (sealed === undefined) return;
  try {
    box.open(sealed, CHECK_CONTEXT);
  } catch {
    throw wrongKey(source);
  }
}

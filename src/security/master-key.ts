import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The master key encrypts private keys and provider credentials at rest. It comes from config
 * (or BORDERD_MASTER_KEY), else from a key file beside the database, created once with mode 0600.
 * Losing the key file makes the encrypted columns unreadable, so it is never regenerated silently.
 */
export function resolveMasterKey(opts: { configured?: string | undefined; file: string }): { key: Buffer; created: boolean } {
  if (opts.configured) return { key: Buffer.from(opts.configured, 'base64'), created: false };
  if (existsSync(opts.file)) {
    const key = Buffer.from(readFileSync(opts.file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`master key file ${opts.file} does not hold base64 of 32 bytes`);
    return { key, created: false };
  }
  mkdirSync(dirname(opts.file), { recursive: true });
  const key = randomBytes(32);
  // 'wx' fails if another process created it in between; then we read theirs.
  try {
    writeFileSync(opts.file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    chmodSync(opts.file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return resolveMasterKey(opts);
    throw err;
  }
  return { key, created: true };
}

/**
 * The operator API's bearer token: where it comes from, and how a presented token is compared with
 * it.
 *
 * @module security/admin-token
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileDurably } from './durable-file.js';

/**
 * The operator API's bearer token: from config (admin.token / BORDERD_ADMIN_TOKEN), else a random
 * token kept in <data dir>/admin.token (mode 0600), made on first start. Operators read it from there.
 */
export function resolveAdminToken(configured: string | undefined, dataDir: string): { token: string; file?: string; created: boolean } {
  if (configured) return { token: configured, created: false };
  const file = join(dataDir, 'admin.token');
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), file, created: false };
  const token = `bat_${randomBytes(32).toString('base64url')}`;
  try {
    createFileDurably(file, token + '\n');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return resolveAdminToken(configured, dataDir);
    throw err;
  }
  return { token, file, created: true };
}

/** Constant-time comparison of two tokens of any length (compares their digests). */
export function tokensEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

/**
 * The `token_keys` table: the keys that sign access tokens, the private half sealed under the
 * master key. The newest unretired key signs.
 *
 * @module store/token-keys
 */
import { hasTable, type Db } from '../db/open.js';

export interface TokenKeyRow {
  kid: string;
  alg: string;
  public_jwk: string;
  private_enc: string;
  created_at: string;
  retired_at: string | null;
}

export function getActiveTokenKey(db: Db): TokenKeyRow | undefined {
  return db.prepare('SELECT * FROM token_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC LIMIT 1').get() as
    TokenKeyRow | undefined;
}

/** Any one token key, or undefined (also on a database from before the table). */
export function anyTokenKey(db: Db): TokenKeyRow | undefined {
  if (!hasTable(db, 'token_keys')) return undefined;
  return db.prepare('SELECT * FROM token_keys LIMIT 1').get() as TokenKeyRow | undefined;
}

export function getTokenKey(db: Db, kid: string): TokenKeyRow | undefined {
  return db.prepare('SELECT * FROM token_keys WHERE kid = ?').get(kid) as TokenKeyRow | undefined;
}

export function insertTokenKey(db: Db, row: TokenKeyRow): void {
  db.prepare('INSERT INTO token_keys (kid, alg, public_jwk, private_enc, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    row.kid,
    row.alg,
    row.public_jwk,
    row.private_enc,
    row.created_at,
    row.retired_at,
  );
}

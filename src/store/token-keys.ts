/**
 * The `token_keys` table: the keys that sign access tokens, the private half sealed under the
 * master key. The newest unretired key signs.
 *
 * @module store/token-keys
 */
import { hasTable, type Db } from '../db/database.js';

export interface TokenKeyRow {
  kid: string;
  alg: string;
  public_jwk: string;
  private_enc: string;
  created_at: string;
  retired_at: string | null;
}

export async function getActiveTokenKey(db: Db): Promise<TokenKeyRow | undefined> {
  return (await db.get('SELECT * FROM token_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC LIMIT 1')) as
    TokenKeyRow | undefined;
}

/** Any one token key, or undefined (also on a database from before the table). */
export async function anyTokenKey(db: Db): Promise<TokenKeyRow | undefined> {
  if (!(await hasTable(db, 'token_keys'))) return undefined;
  return (await db.get('SELECT * FROM token_keys LIMIT 1')) as TokenKeyRow | undefined;
}

export async function getTokenKey(db: Db, kid: string): Promise<TokenKeyRow | undefined> {
  return (await db.get('SELECT * FROM token_keys WHERE kid = ?', [kid])) as TokenKeyRow | undefined;
}

export async function insertTokenKey(db: Db, row: TokenKeyRow): Promise<void> {
  await db.run('INSERT INTO token_keys (kid, alg, public_jwk, private_enc, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?)', [
    row.kid,
    row.alg,
    row.public_jwk,
    row.private_enc,
    row.created_at,
    row.retired_at,
  ]);
}

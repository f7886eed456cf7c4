/**
 * Which backend a test process runs on (BORDERD_TEST_BACKEND, set per vitest project) and, on
 * PostgreSQL, a database of the test's own: a copy of the migrated template, dropped after the test.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, inject } from 'vitest';

export const onPostgres = process.env.BORDERD_TEST_BACKEND === 'postgres';

const made: string[] = [];
let admin: pg.Pool | undefined;

const adminPool = (): pg.Pool => (admin ??= new pg.Pool({ connectionString: inject('postgres').adminUrl, max: 2 }));

afterEach(async () => {
  for (const name of made.splice(0)) await adminPool().query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

/** A fresh, migrated database for this test; its URL. */
export async function freshPostgresDatabase(): Promise<string> {
  const { adminUrl, template } = inject('postgres');
  const name = `t_${randomBytes(8).toString('hex')}`;
  await adminPool().query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  made.push(name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

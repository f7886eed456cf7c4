import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { listMigrations } from '../../src/db/migrate.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { runCli, startBorderd } from '../support/process.js';
import { tempDir } from '../support/context.js';

// Needs the compiled CLI (npm run build).
const withPassword = (url: string, password: string) => {
  const u = new URL(url);
  u.password = password;
  return u.toString();
};

describe('borderd commands on PostgreSQL: bad input is one line', () => {
  it('names the setting for an unreachable server, a wrong password and a database that does not exist', async () => {
    const env = { BORDERD_DATA_DIR: tempDir() };
    const refused = await runCli(['orgs', 'list', '--database-url', 'postgres://borderd:x@127.0.0.1:1/borderd'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /cannot use the database postgres:\/\/borderd:\*\*\*@127\.0\.0\.1:1\/borderd: the connection was refused .*\(database\.url\)/,
    );

    const url = await freshPostgresDatabase();
    const wrong = await runCli(['orgs', 'list', '--database-url', withPassword(url, 'not-the-password')], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/the password was refused \(database\.url\)\n$/);
    expect(wrong.stderr).not.toContain('not-the-password');

    const missing = new URL(url);
    missing.pathname = '/no_such_database';
    const absent = await runCli(['orgs', 'list', '--database-url', missing.toString()], env);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toMatch(/the database does not exist \(database\.url\)\n$/);
  });

  it('refuses a SQLite file and a PostgreSQL URL given together, and a URL that is not PostgreSQL', async () => {
    const dir = tempDir();
    const both = await runCli(['orgs', 'list', '--db', `${dir}/x.db`, '--database-url', 'postgres://u:p@127.0.0.1/db']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /database\.path \(from the --db flag\) names a SQLite file and database\.url \(from the --database-url flag\) a PostgreSQL database: give one of them\n$/,
    );
    const notPg = await runCli(['orgs', 'list', '--database-url', 'mysql://u:p@127.0.0.1/db']);
    expect(notPg.code).toBe(2);
    expect(notPg.stderr).toMatch(/database\.url: must be a PostgreSQL URL/);
  });

  it('stops at a database migrated by a newer borderd', async () => {
    const url = await freshPostgresDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from_a_newer_release', 'x')");
    await client.end();
    const res = await runCli(['orgs', 'list', '--database-url', url], { BORDERD_DATA_DIR: tempDir() });
    expect(res.code).toBe(2);
    const newest = listMigrations('postgres').at(-1)!.version;
    expect(res.stderr).toContain(`is at schema version 999, newer than this borderd knows (${newest})`);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('never prints a password given as ?password= or ?sslpassword=, and says a bad options= in one line', async () => {
    const env = { BORDERD_DATA_DIR: tempDir() };
    const url = new URL(await freshPostgresDatabase());
    const password = decodeURIComponent(url.password);
    url.password = '';
    url.searchParams.set('password', password);
    const inQuery = url.toString();
    // The shared server's password may be a common word: look for it where the URL would show it.
    const shown = `password=${encodeURIComponent(password)}`;

    const migrated = await runCli(['migrate', '--database-url', inQuery], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/database postgres:\/\/.*\?password=\*\*\* is at schema version/);
    expect(migrated.stdout + migrated.stderr).not.toContain(shown);

    const wrong = new URL(inQuery);
    wrong.searchParams.set('password', 'wrong-query-password');
    wrong.searchParams.set('sslpassword', 'ssl-key-passphrase');
    const commands = [['migrate'], ['serve', '--port', '0']];
    for (const command of commands) {
      const res = await runCli([...command, '--database-url', wrong.toString()], env);
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toContain('the password was refused (database.url)');
      expect(res.stderr).toContain('password=***&sslpassword=***');
      expect(res.stderr).not.toMatch(/wrong-query-password|ssl-key-passphrase/);
    }

    const badOptions = new URL(inQuery);
    badOptions.searchParams.set('options', '-c no_such_setting_of_borderd=1');
    for (const command of commands) {
      const res = await runCli([...command, '--database-url', badOptions.toString()], env);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(
        /options=.*: the server refused the options= parameter of the URL: .*no_such_setting_of_borderd.*\(database\.url\)/,
      );
      expect(res.stderr).not.toContain(shown);
    }

    // The listening line names the database it serves, by its redacted URL.
    const daemon = await startBorderd({ databaseUrl: inQuery, dataDir: env.BORDERD_DATA_DIR, env: { BORDERD_LOG_LEVEL: 'info' } });
    expect((await daemon.stop()).code).toBe(0);
    const listening = daemon
      .output()
      .split('\n')
      .find((line) => line.includes('"borderd listening"'));
    expect(listening).toBeDefined();
    expect(JSON.parse(listening!)).toMatchObject({ db: expect.stringMatching(/^postgres:\/\/.*\?password=\*\*\*$/) });
    expect(daemon.output()).not.toContain(shown);
    expect(daemon.output()).not.toContain('borderd.db');
  });
});

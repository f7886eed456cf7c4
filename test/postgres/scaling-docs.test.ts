/**
 * docs/scaling.md's move to PostgreSQL, run as written: its shell block is read from the page and
 * run by bash line by line, with `borderd` the compiled CLI, `psql` pointed at the test server, and
 * the page's placeholder URL replaced by that server's. A command that stops working fails here.
 * Needs `npm run build`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { BIN, ROOT, runCli } from '../support/process.js';

const PLACEHOLDER = 'postgres://borderd:…@db:5432/borderd';

/** The first ```sh block after `heading` in a docs page. */
function shellBlock(page: string, heading: string): string {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  const from = text.indexOf(`\n${heading}\n`);
  expect(from, `${page} has "${heading}"`).toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(from));
  expect(block, `${page}'s "${heading}" has a sh block`).not.toBeNull();
  return block![1]!;
}

const admin = () => new pg.Client({ connectionString: inject('postgres').adminUrl });

afterEach(async () => {
  const client = admin();
  await client.connect();
  await client.query('DROP DATABASE IF EXISTS borderd WITH (FORCE)');
  await client.query('DROP ROLE IF EXISTS borderd');
  await client.end();
});

describe('docs/scaling.md', () => {
  it('"Moving an existing database" copies a SQLite file with a sealed key and starts on PostgreSQL with its master key', async () => {
    const block = shellBlock('scaling.md', '## Moving an existing database');
    expect(block).toContain(PLACEHOLDER);
    const adminUrl = new URL(inject('postgres').adminUrl);
    const client = admin();
    await client.connect();
    await client.query(`CREATE ROLE borderd LOGIN PASSWORD 'docs-secret'`);
    await client.end();
    const url = new URL(adminUrl);
    url.username = 'borderd';
    url.password = 'docs-secret';
    url.pathname = '/borderd';

    // A development SQLite file with an organization: its signing key is sealed under ./data/master.key.
    const dir = tempDir('borderd-docs-');
    expect((await runCli(['migrate', '--db', join(dir, 'data', 'borderd.db')])).code).toBe(0);
    const org = await runCli(['orgs', 'create', '--db', join(dir, 'data', 'borderd.db'), '--name', 'Acme', '--print', 'id']);
    expect(org.code).toBe(0);

    // `borderd` as npm link installs it; psql as the operator's client, or the same statement through pg where none is installed.
    const bin = tempDir('borderd-docs-bin-');
    writeFileSync(join(bin, 'borderd'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'borderd'), 0o755);
    if (spawnSync('psql', ['--version']).status !== 0) {
      const script = `const pg = require(${JSON.stringify(join(ROOT, 'node_modules', 'pg'))}); const c = new pg.Client(); c.connect().then(() => c.query(process.argv[2])).then(() => c.end(), (e) => { console.error(e.message); process.exit(1); });`;
      writeFileSync(join(bin, 'psql'), `#!/bin/sh\n[ "$1" = "-c" ] || exit 2\nexec "${process.execPath}" -e '${script}' "$2"\n`);
      chmodSync(join(bin, 'psql'), 0o755);
    }
    const script = block.replaceAll(PLACEHOLDER, url.toString());
    const proc = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: dir,
      env: {
        ...process.env,
        PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
        PGHOST: adminUrl.hostname,
        PGPORT: adminUrl.port,
        PGUSER: decodeURIComponent(adminUrl.username),
        PGPASSWORD: decodeURIComponent(adminUrl.password),
        PGDATABASE: adminUrl.pathname.slice(1),
        BORDERD_HOST: '127.0.0.1',
        BORDERD_PORT: '0',
        BORDERD_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      // The block ends with the daemon: it runs until stopped, so the test waits for its listening line.
      const listening = await new Promise<string>((resolve, reject) => {
        const check = () => {
          const m = /borderd listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        };
        proc.stdout.on('data', check);
        proc.stderr.on('data', check);
        void exited.then((code) => reject(new Error(`the block stopped (exit ${code}) before borderd listened:\n${out}`)));
      });
      const health = await fetch(new URL('/healthz', listening));
      expect(health.status).toBe(200);
      // The copied organization is there, and the daemon that just started checked the master key it was given against it.
      const orgs = await runCli(['orgs', 'list', '--database-url', url.toString(), '--print', 'id'], {
        BORDERD_MASTER_KEY: readFileSync(join(dir, 'data', 'master.key'), 'utf8').trim(),
      });
      expect(orgs.stdout.trim().split('\n')).toEqual([org.stdout.trim()]);
    } finally {
      process.kill(-proc.pid!, 'SIGTERM');
      await exited;
    }
  });
});

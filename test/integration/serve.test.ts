import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteServiceMeta, readServiceMeta } from '../../src/store/service-meta.js';
import { openSqlite, tempDir } from '../support/context.js';
import { BIN, runCli, startBorderd } from '../support/process.js';
import { recordMigrationOfNewerRelease } from '../support/schema-migrations.js';
import { holdWriteLock } from '../support/write-lock.js';

/**
 * A data directory as a first start leaves it after a clean stop (database, master key, admin
 * token): started once per file, by the first test that asks, and copied for each test that then
 * changes it, so those tests start no daemon of their own to get one.
 */
let firstStarted: Promise<string> | undefined;
afterAll(async () => {
  if (firstStarted) rmSync(await firstStarted, { recursive: true, force: true });
});
async function afterFirstStart(): Promise<{ dataDir: string; dbPath: string }> {
  firstStarted ??= (async () => {
    const template = mkdtempSync(join(tmpdir(), 'borderd-first-start-'));
    const first = await startBorderd({ dataDir: template });
    expect(await first.stop()).toEqual({ code: 0, signal: null });
    return template;
  })();
  const dataDir = tempDir('borderd-serve-');
  cpSync(await firstStarted, dataDir, { recursive: true });
  return { dataDir, dbPath: join(dataDir, 'borderd.db') };
}

describe('borderd serve (real process)', () => {
  it('first start prints credentials that work; SIGTERM exits 0', async () => {
    // debug: every log line the daemon can write is there to be searched for the secret below.
    const daemon = await startBorderd({ env: { BORDERD_LOG_LEVEL: 'debug' } });
    try {
      expect(daemon.credentials?.clientId).toMatch(/^cli_/);
      expect(daemon.output()).toContain(`curl -s -X POST ${daemon.url}/v1/auth/m2m/token`);

      const ready = await fetch(`${daemon.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready' });

      const tokenRes = await fetch(`${daemon.url}/v1/auth/m2m/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(daemon.credentials),
      });
      expect(tokenRes.status).toBe(201);
      const { accessToken } = (await tokenRes.json()) as { accessToken: string };

      const unauth = await fetch(`${daemon.url}/v1/refunds/config`);
      expect(unauth.status).toBe(401);
      const res = await fetch(`${daemon.url}/v1/refunds/config`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(await res.json()).toBeNull();
    } finally {
      const exit = await daemon.stop('SIGTERM');
      expect(exit).toEqual({ code: 0, signal: null });
    }
    // The secret went to stdout once, never into a log line.
    const logLines = daemon
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(logLines.join('\n')).not.toContain(daemon.credentials!.clientSecret);
  });

  it('with JSON log lines (stdout not a terminal), stdout carries only JSON lines; the banner and the listening line go to stderr', async () => {
    const dataDir = tempDir('borderd-stdout-');
    const proc = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--db', join(dataDir, 'borderd.db')], {
      env: { ...process.env, BORDERD_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`did not start:\n${stdout}${stderr}`)), 20_000);
        proc.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (!/borderd listening on http/.test(stderr)) return;
          clearTimeout(timer);
          resolve();
        });
      });
    } finally {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    expect(stderr).toMatch(/clientSecret:\s+\S+/);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(2); // migrations, listening, shutting down, stopped
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(stdout).toContain('"msg":"borderd listening"');
  });

  it('--json: one JSON line with where it listens and, on a first start, the client made', async () => {
    const dataDir = tempDir('borderd-json-');
    const proc = spawn(
      process.execPath,
      [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--db', join(dataDir, 'borderd.db'), '--json'],
      {
        // log.pretty: always is overridden by --json: stdout stays JSON lines.
        env: { ...process.env, BORDERD_LOG_LEVEL: 'info', BORDERD_LOG_PRETTY: 'always' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no JSON line:\n${out}`)), 20_000);
        proc.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          // Complete lines only: every one is JSON, log lines included.
          for (const l of out.split('\n').slice(0, -1)) {
            try {
              JSON.parse(l);
            } catch {
              reject(new Error(`not a JSON line: ${l}`));
            }
            if (!l.startsWith('{"listening"')) continue;
            clearTimeout(timer);
            resolve(JSON.parse(l) as Record<string, unknown>);
          }
        });
      });
      expect(line).toMatchObject({
        listening: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        firstStart: {
          organizationId: expect.stringMatching(/^org_/),
          clientId: expect.stringMatching(/^cli_/),
          clientSecret: expect.any(String),
        },
      });
      const token = await fetch(`${String(line.listening)}/v1/auth/m2m/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          clientId: (line.firstStart as { clientId: string }).clientId,
          clientSecret: (line.firstStart as { clientSecret: string }).clientSecret,
        }),
      });
      expect(token.status).toBe(201);
    } finally {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
  });

  it('stops on SIGTERM although whatever read its output has gone away', async () => {
    // A log reader that died (a parent that exited, a broken log pipe): the daemon's last lines meet a
    // closed pipe. It must neither crash on the first line nor hang at exit flushing the last ones.
    const daemon = await startBorderd({ env: { BORDERD_LOG_LEVEL: 'info' } });
    for (let i = 0; i < 20; i++) expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    // Gone just before the stop: the shutdown lines are the first to meet the closed pipe.
    daemon.proc.stdout!.destroy();
    daemon.proc.kill('SIGTERM');
    const deadline = new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000).unref());
    const exit = await Promise.race([daemon.exited, deadline]);
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('a second start on the same database creates nothing and prints no secret', async () => {
    const first = await startBorderd();
    await first.stop();
    const second = await startBorderd({ dataDir: first.dataDir });
    try {
      expect(second.credentials).toBeUndefined();
      expect(second.output()).not.toContain('clientSecret');
    } finally {
      const exit = await second.stop('SIGINT');
      expect(exit, second.output()).toEqual({ code: 0, signal: null });
    }
  });

  it('refuses to start on a bad config with one clear line', async () => {
    await expect(startBorderd({ env: { BORDERD_DELIVERY_JITTER: '2' } })).rejects.toThrow(/invalid config: delivery\.jitter/);
  });

  it('a first start that cannot listen creates no credentials; the next start shows them', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    const dataDir = tempDir('borderd-busy-');
    const db = join(dataDir, 'borderd.db');
    try {
      const refused = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port), '--db', db]);
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim()).toBe(
        `borderd: cannot listen on 127.0.0.1:${port}: the address is already in use (server.host, server.port)`,
      );
      expect(refused.stdout).not.toContain('clientSecret');
    } finally {
      busy.close();
    }
    // An address of no interface here (a documentation address: nothing is sent anywhere): one line, exit 2.
    const foreign = await runCli(['serve', '--host', '192.0.2.1', '--port', '0', '--db', db]);
    expect([foreign.code, foreign.stderr]).toEqual([
      2,
      'borderd: cannot listen on 192.0.2.1:0: no interface of this machine has that address (server.host, server.port)\n',
    ]);
    // Nothing was created by the failed starts: no database, no master key, no admin token.
    expect(readdirSync(dataDir)).toEqual([]);
    const orgs = await runCli(['orgs', 'list', '--json', '--db', db]);
    expect(orgs.code).toBe(2);
    const next = await startBorderd({ dataDir });
    try {
      expect(next.credentials?.clientSecret).toMatch(/^bsk_/);
    } finally {
      await next.stop();
    }
  });

  it('refuses a database a newer borderd migrated, serve and CLI alike, with one line', async () => {
    const first = await afterFirstStart();
    const sqlite = openSqlite(first.dbPath);
    const newer = await recordMigrationOfNewerRelease(sqlite);
    await sqlite.close();
    const line = `borderd: database ${first.dbPath} is at schema version ${newer}, newer than this borderd knows (${newer - 1}): run the release that migrated it, or restore the backup made before that upgrade`;
    for (const args of [['serve', '--host', '127.0.0.1', '--port', '0'], ['migrate'], ['orgs', 'list']]) {
      const refused = await runCli([...args, '--db', first.dbPath]);
      expect(refused.code, args[0]).toBe(2);
      expect(refused.stderr.trim(), args[0]).toBe(line);
      expect(refused.stdout, args[0]).not.toContain('listening');
    }
  });

  it('stops with one line when the database cannot be opened, or another process keeps it locked', async () => {
    const dir = tempDir('borderd-db-');
    const serve = (db: string, env: Record<string, string> = {}) =>
      runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--db', db], env);
    const oneLine = (r: { code: number | null; stdout: string; stderr: string }) => {
      expect(r.stdout).not.toContain('listening');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      return r.stderr.trim();
    };

    // A data directory that cannot be made (a file is in the way; as root, permissions would not stop it).
    writeFileSync(join(dir, 'file'), 'x');
    const noDir = await serve(join(dir, 'file', 'borderd.db'));
    expect(noDir.code).toBe(2);
    expect(oneLine(noDir)).toBe(
      `borderd: cannot open database ${join(dir, 'file', 'borderd.db')}: ${join(dir, 'file')} is not a directory (database.path)`,
    );

    // A file that is not a SQLite database.
    mkdirSync(join(dir, 'garbage'));
    writeFileSync(join(dir, 'garbage', 'borderd.db'), 'not a database, just text that is long enough to be read as a header'.repeat(20));
    const notDb = await serve(join(dir, 'garbage', 'borderd.db'));
    expect(notDb.code).toBe(2);
    expect(oneLine(notDb)).toBe(
      `borderd: cannot open database ${join(dir, 'garbage', 'borderd.db')}: file is not a database (database.path)`,
    );

    // Another process holds the write lock past the busy timeout while the start has to write (migrations).
    mkdirSync(join(dir, 'locked'));
    const holder = holdWriteLock(join(dir, 'locked', 'borderd.db'));
    try {
      const locked = await serve(join(dir, 'locked', 'borderd.db'), { BORDERD_DATABASE_BUSY_TIMEOUT_MS: '200' });
      expect(locked.code).toBe(1);
      expect(oneLine(locked)).toBe(
        'borderd: the database is locked: another process held its write lock longer than database.busyTimeoutMs; try again',
      );
    } finally {
      holder.release();
    }
  });

  it('refuses to start without the master key its secrets were sealed with, and never makes a new one', async () => {
    const first = await afterFirstStart();
    const keyFile = join(first.dataDir, 'master.key');
    const original = readFileSync(keyFile, 'utf8');
    renameSync(keyFile, `${keyFile}.bak`);
    const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--db', first.dbPath];

    const missing = await runCli(args);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^borderd: master key file .*master\.key is missing, and this database holds secrets sealed under a master key/,
    );
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(keyFile)).toBe(false);

    const wrong = await runCli(args, { BORDERD_MASTER_KEY: randomBytes(32).toString('base64') });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trim()).toBe(
      "borderd: the master key from security.masterKey (BORDERD_MASTER_KEY) is not the one this database's secrets are sealed with: use the key it was created with",
    );

    const right = await startBorderd({ dataDir: first.dataDir, env: { BORDERD_MASTER_KEY: original.trim() } });
    await right.stop();
    renameSync(`${keyFile}.bak`, keyFile);
    const restored = await startBorderd({ dataDir: first.dataDir });
    expect(await restored.stop()).toEqual({ code: 0, signal: null });
  });

  it('guards a database from before the key check too: no new key beside its secrets, no wrong key accepted', async () => {
    const first = await afterFirstStart(); // a token key sealed
    const sqlite = openSqlite(first.dbPath);
    await deleteServiceMeta(sqlite, 'master_key_check'); // as before migration 009
    await sqlite.close();
    const keyFile = join(first.dataDir, 'master.key');
    const original = readFileSync(keyFile, 'utf8').trim();
    renameSync(keyFile, `${keyFile}.bak`);
    const list = ['orgs', 'list', '--json', '--db', first.dbPath];

    const missing = await runCli(list);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/master\.key is missing, and this database holds secrets/);
    expect(existsSync(keyFile)).toBe(false);

    const wrong = await runCli(list, { BORDERD_MASTER_KEY: randomBytes(32).toString('base64') });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/is not the one this database's secrets are sealed with/);

    const right = await runCli(list, { BORDERD_MASTER_KEY: original });
    expect(right.code).toBe(0);
    const check = openSqlite(first.dbPath, { readonly: true });
    expect(await readServiceMeta(check, 'master_key_check')).toBeDefined();
    await check.close();
  });
});

/**
 * `borderd migrate --from-sqlite FILE --database-url URL`: a SQLite database written through the
 * services is copied by the real CLI into a PostgreSQL database, which is then opened as the daemon
 * opens it and used (tokens, signing, sealed secrets, the outbox). Needs `npm run build`.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { OpenContext } from '../../src/context.js';
import { createContext } from '../../src/create-context.js';
import { hasTable, type Db } from '../../src/db/database.js';
import { listMigrations, migrate } from '../../src/db/migrate.js';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { Signer } from '../../src/delivery/signing-keys.js';
import { ManualClock } from '../../src/domain/clock.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { showInbound } from '../../src/inbound/event-queue.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { createLogger } from '../../src/logging/logger.js';
import { createAccount } from '../../src/services/accounts.js';
import { createIdentity } from '../../src/services/identities.js';
import { openCredentials, putPfiClientCredentials } from '../../src/services/integrations.js';
import { createApiClient, createOrganization, revokeClient } from '../../src/services/organizations.js';
import { TokenService } from '../../src/services/tokens.js';
import { changeTransactionStatus, createTransaction } from '../../src/services/transactions.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { joseToken, makeKeyPair, notification } from '../inbound/jwe-fixtures.js';
import { signatureVerifies, startReceiver } from '../delivery/receiver.js';
import { makeApi, openSqlite, tempDir } from '../support/context.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { runCli } from '../support/process.js';

const silent = () => createLogger({ level: 'silent', pretty: 'never', destination: process.stderr });

/** Databases made here (empty, not from the migrated template), dropped after each test. */
const made: string[] = [];
let admin: pg.Pool | undefined;
const adminPool = (): pg.Pool => (admin ??= new pg.Pool({ connectionString: inject('postgres').adminUrl, max: 2 }));

afterEach(async () => {
  for (const name of made.splice(0)) await adminPool().query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

/** A new database with nothing in it, as an operator creates one for borderd; its URL. */
async function emptyPostgresDatabase(): Promise<string> {
  const name = `copy_${randomBytes(8).toString('hex')}`;
  await adminPool().query(`CREATE DATABASE ${name}`);
  made.push(name);
  const url = new URL(inject('postgres').adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Opens the target as `borderd serve` would, with the source's master key. */
async function openTarget(url: string, keyFile: string): Promise<OpenContext> {
  const config = loadConfig({
    env: {},
    flags: { 'database.url': url, 'database.pool.max': 4, dataDir: tempDir(), 'security.masterKeyFile': keyFile, 'log.level': 'silent' },
  });
  const ctx = await createContext(config, { log: silent() });
  opened.push(ctx);
  return ctx;
}
const opened: OpenContext[] = [];
afterEach(async () => {
  for (const ctx of opened.splice(0)) await ctx.db.close();
});

/** A direct connection to a database, for counts and rows outside borderd. */
async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The tables a copy covers: the source's, but the migrations' own bookkeeping. */
async function copiedTables(db: Db): Promise<string[]> {
  const names = await db.column<string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'");
  return names.filter((n) => n !== 'schema_migrations').sort();
}

/** Every row of a table in one order, whichever engine: rows compare as values (BIGINT arrives as a number on both). */
async function rowsOf(db: Db, table: string): Promise<Record<string, unknown>[]> {
  const rows = await db.all<Record<string, unknown>>(`SELECT * FROM ${table}`);
  const key = (r: Record<string, unknown>) =>
    JSON.stringify(
      Object.keys(r)
        .sort()
        .map((k) => r[k]),
    );
  return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

const oneLine = (stderr: string) => {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
};

/**
 * A SQLite database with real content written through the services: organizations, clients (one
 * revoked), a token key, webhooks with their signing key, transactions with their events and
 * deliveries (delivered, and failed once so still pending), an identity and an account, sealed
 * integration credentials, a card-network key and a decrypted inbound notification.
 */
async function buildSource(dir: string) {
  const file = join(dir, 'borderd.db');
  const config = loadConfig({
    env: {},
    flags: { 'database.path': file, 'log.level': 'silent', 'delivery.retryScheduleSeconds': [0, 1, 60], 'delivery.jitter': 0 },
  });
  const ctx = await createContext(config, { log: silent() });
  try {
    const org = await createOrganization(ctx, 'Acme Pagos — São Paulo 東京 ✓');
    const other = await createOrganization(ctx, 'Other');
    const tokens = new TokenService(ctx);
    const client = await createApiClient(ctx, { orgId: org.id, piiAccess: 'all' });
    const token = (await tokens.issue({ clientId: client.id, clientSecret: client.clientSecret })).accessToken;
    const revoked = await createApiClient(ctx, { orgId: other.id, piiAccess: 'redacted' });
    await revokeClient(ctx, revoked.id);

    const receiver = await startReceiver((r, res) => {
      res.statusCode = r.url.endsWith('/down') ? 503 : 200;
      res.end(res.statusCode === 200 ? 'ok ✓' : 'down');
    });
    const up = await createWebhook(ctx, org.id, { url: `${receiver.url}/up` });
    const down = await createWebhook(ctx, org.id, { url: `${receiver.url}/down` });

    const identity = await createIdentity(ctx, org.id, {
      type: 'Personal',
      deleted: false,
      hasComplianceChecks: false,
      data: { firstName: 'Ana', lastName: 'García Ñúñez', email: 'ana@example.com' },
    });
    const account = await createAccount(ctx, org.id, {
      provider: 'bitso',
      name: 'Main €',
      identityId: identity.id,
      assets: [{ asset: 'USDC', address: '0xabc' }],
      fiats: [{ fiat: 'MXN' }],
    });
    const paid = await createTransaction(ctx, {
      orgId: org.id,
      type: 'Deposit',
      amount: '125.50',
      currency: 'USD',
      identityId: identity.id,
      accountId: account.id,
      source: { note: 'quote "exact" \\ bytes ✓ \u2028' },
    });
    await changeTransactionStatus(ctx, paid.id, 'Processing');
    await changeTransactionStatus(ctx, paid.id, 'Completed');
    const failed = await createTransaction(ctx, { orgId: org.id, type: 'Deposit', network: 'POLYGON' });
    await changeTransactionStatus(ctx, failed.id, 'Failed', 'declined by the bank');

    const provider = ctx.config.integrations.providers['provider-b']!;
    const credentials = { clientId: 'pfi-client-0123456789', clientSecret: 'pfi-secret-0123456789' };
    await putPfiClientCredentials(ctx, org.id, 'provider-b', provider, credentials);

    // Deliveries: every one to `up` delivered, every one to `down` failed once and pending a retry.
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    while ((await dispatcher.runOnce()) > 0);
    await dispatcher.stop();

    const cardKey = makeKeyPair();
    ctx.config.inbound.icaOrganizations = { '123456': org.id };
    await importCardNetworkKey(ctx, org.id, Buffer.from(cardKey.privatePem));
    const payload = { tokenUniqueReference: 'DWSPMC000000000132d72d4fcb2f4136a0532d3093ff1a45', status: 'ACTIVE' };
    const { http } = makeApi(ctx);
    const posted = await http
      .post('/v1/webhooks/card-network')
      .send(notification(await joseToken(payload, cardKey), { eventId: 'ev-copied' }) as object);
    expect(posted.status).toBe(200);
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });

    return {
      file,
      dir,
      keyFile: join(dir, 'master.key'),
      org,
      client,
      token,
      webhooks: { up, down },
      paid,
      credentials,
      payload,
      delivered: receiver.received.length,
    };
  } finally {
    await ctx.db.close();
  }
}

type Source = Awaited<ReturnType<typeof buildSource>>;

/**
 * The source, built once per file by the first test that asks (its directory outlives that test),
 * and a copy of its directory (database and master key) for each test, which may change it.
 */
let built: Promise<Source> | undefined;
afterAll(async () => {
  if (built) rmSync((await built).dir, { recursive: true, force: true });
});
async function sourceCopy(): Promise<Source> {
  built ??= buildSource(mkdtempSync(join(tmpdir(), 'borderd-copy-source-')));
  const source = await built;
  const dir = tempDir('borderd-copy-');
  cpSync(source.dir, dir, { recursive: true });
  return { ...source, dir, file: join(dir, 'borderd.db'), keyFile: join(dir, 'master.key') };
}

describe('borderd migrate --from-sqlite', () => {
  it('copies every table byte for byte, and the daemon on PostgreSQL uses what it copied', async () => {
    const source = await sourceCopy();
    const url = await emptyPostgresDatabase();
    const { code, stdout, stderr } = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', url, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      source: string;
      target: string;
      schemaVersion: number;
      tables: { table: string; source: number; target: number }[];
      rows: number;
      masterKey: { from: string; daemonReadsFrom: string; inPlace: boolean };
    };
    // Nothing secret is said: neither the password nor the master key nor a client secret.
    const password = new URL(url).password;
    expect(stdout).not.toContain(`:${password}@`);
    expect(stdout).not.toContain(readFileSync(source.keyFile, 'utf8').trim());
    expect(stdout).not.toContain(source.client.clientSecret);
    expect(report.target).toContain(':***@');
    expect(report.schemaVersion).toBe(listMigrations('sqlite').at(-1)!.version);
    expect(report.masterKey).toMatchObject({ from: source.keyFile, inPlace: false });

    // Every table is reported, each count the same, parents before the tables that refer to them.
    const sqlite = openSqlite(source.file, { readonly: true });
    const tables = await copiedTables(sqlite);
    expect(report.tables.map((t) => t.table).sort()).toEqual(tables);
    for (const t of report.tables) expect(t.target).toBe(t.source);
    const order = report.tables.map((t) => t.table);
    for (const [child, parent] of [
      ['api_clients', 'organizations'],
      ['accounts', 'identities'],
      ['deliveries', 'events'],
      ['deliveries', 'webhooks'],
      ['delivery_attempts', 'deliveries'],
      ['event_signatures', 'events'],
      ['refund_plans', 'transactions'],
    ]) {
      expect(order.indexOf(child!)).toBeGreaterThan(order.indexOf(parent!));
    }
    // The content is worth the check: the tables that hold the secrets and the outbox have rows.
    const counted = new Map(report.tables.map((t) => [t.table, t.source]));
    for (const t of [
      'organizations',
      'api_clients',
      'token_keys',
      'service_meta',
      'webhooks',
      'webhook_keys',
      'transactions',
      'events',
      'event_signatures',
      'deliveries',
      'delivery_attempts',
      'identities',
      'accounts',
      'integrations',
      'card_network_keys',
      'inbound_events',
    ]) {
      expect(counted.get(t), t).toBeGreaterThan(0);
    }
    expect(report.rows).toBe([...counted.values()].reduce((a, b) => a + b, 0));

    // Every row of every table, every column, as the source holds it.
    const target = await openTarget(url, source.keyFile);
    for (const t of tables) expect(await rowsOf(target.db, t), t).toEqual(await rowsOf(sqlite, t));

    // The old client secret gets a token, and a token issued before the copy is still good.
    const tokens = new TokenService(target);
    const issued = await tokens.issue({ clientId: source.client.id, clientSecret: source.client.clientSecret });
    expect((await tokens.verify(issued.accessToken)).orgId).toBe(source.org.id);
    expect((await tokens.verify(source.token)).clientId).toBe(source.client.id);

    // The webhook key signs (its sealed private key opens), and its signature verifies with the copied public key.
    const keys = await target.db.all<{ id: string; public_pem: string }>('SELECT id, public_pem FROM webhook_keys WHERE org_id = ?', [
      source.org.id,
    ]);
    const body = '{"probe":"ü"}';
    const signed = await new Signer(target).sign(source.org.id, body);
    expect(keys.map((k) => k.id)).toContain(signed.keyId);
    const pem = keys.find((k) => k.id === signed.keyId)!.public_pem;
    expect(signatureVerifies({ body, headers: { 'x-signature': signed.signature } }, pem)).toBe(true);

    // Sealed credentials and the decrypted notification open with the same master key.
    expect(await openCredentials(target, source.org.id, 'provider-b')).toEqual(source.credentials);
    expect((await showInbound(target, 'ev-copied')).payload).toEqual(source.payload);

    // The outbox goes on: the pending retries are sent with the event's exact body, signed with the copied key.
    const receiver = await startReceiver();
    await target.db.run('UPDATE webhooks SET url = ? WHERE id = ?', [`${receiver.url}/down`, source.webhooks.down.id]);
    const pending = await target.db.all<{ event_id: string }>(
      "SELECT event_id FROM deliveries WHERE state = 'pending' AND webhook_id = ?",
      [source.webhooks.down.id],
    );
    expect(pending.length).toBeGreaterThan(0);
    // Later than every retry the source scheduled.
    const later = { ...target, clock: new ManualClock(Date.now() + 30_000) };
    const dispatcher = new Dispatcher(later, { random: () => 0.5 });
    while ((await dispatcher.runOnce()) > 0);
    await dispatcher.stop();
    expect(receiver.received).toHaveLength(pending.length);
    for (const r of receiver.received) {
      const eventId = JSON.parse(r.body.toString()).id as string;
      const stored = await sqlite.value<string>('SELECT body FROM events WHERE id = ?', [eventId]);
      expect(r.body.equals(Buffer.from(stored!, 'utf8'))).toBe(true);
      const key = keys.find((k) => k.id === r.headers['x-signature-key-id'])!;
      expect(signatureVerifies(r, key.public_pem)).toBe(true);
    }
  });

  it('refuses a second run into the copy it made, leaving it as it is', async () => {
    const source = await sourceCopy();
    const url = await emptyPostgresDatabase();
    expect((await runCli(['migrate', '--from-sqlite', source.file, '--database-url', url])).code).toBe(0);
    const before = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM events');
    const again = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', url]);
    expect(again.code).toBe(1);
    oneLine(again.stderr);
    expect(again.stderr).toContain('already holds a copy of');
    expect(again.stdout).toBe('');
    expect(await query<{ n: string }>(url, 'SELECT count(*) AS n FROM events')).toEqual(before);
  });

  it('leaves the target as it was when a copy fails midway, and a second run copies everything once', async () => {
    const source = await sourceCopy();
    // PostgreSQL's text cannot hold NUL: a row of the last table copied stops the copy after the others went in.
    const sqlite = openSqlite(source.file);
    const attempt = (await sqlite.value<string>('SELECT id FROM delivery_attempts ORDER BY rowid DESC LIMIT 1'))!;
    await sqlite.run('UPDATE delivery_attempts SET response_body = ? WHERE id = ?', ['bin\u0000ary', attempt]);
    const url = await emptyPostgresDatabase();
    const failed = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', url]);
    expect(failed.code).toBe(1);
    oneLine(failed.stderr);
    expect(failed.stderr).toContain('delivery_attempts');
    expect(failed.stderr).toContain('NUL');
    expect(failed.stderr).toContain('nothing was committed');
    for (const t of ['organizations', 'events', 'deliveries', 'delivery_attempts', 'service_meta']) {
      expect(await query(url, `SELECT 1 FROM ${t} LIMIT 1`), t).toEqual([]);
    }

    await sqlite.run('UPDATE delivery_attempts SET response_body = ? WHERE id = ?', ['binary', attempt]);
    const ok = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', url, '--json']);
    expect(ok.code).toBe(0);
    for (const t of JSON.parse(ok.stdout).tables as { table: string; source: number }[]) {
      expect(await query(url, `SELECT count(*)::int AS n FROM ${t.table}`), t.table).toEqual([{ n: t.source }]);
    }
  });

  it('leaves the target as it was when the copy is killed, and a second run copies everything once', async () => {
    const source = await sourceCopy();
    // Enough rows that the copy is still inserting when it is killed.
    const sqlite = openSqlite(source.file);
    const body = JSON.stringify({ padding: 'x'.repeat(900) });
    await sqlite.transaction(async (tx) => {
      for (let i = 0; i < 60_000; i++) {
        await tx.run('INSERT INTO events (id, org_id, type, body, created_at) VALUES (?, ?, ?, ?, ?)', [
          `evt_bulk_${String(i).padStart(6, '0')}`,
          source.org.id,
          'Transaction_Updated',
          body,
          '2026-01-01T00:00:00.000Z',
        ]);
      }
    });
    const url = await emptyPostgresDatabase();
    const database = new URL(url).pathname.slice(1);
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../support/process.js');
    const proc = spawn(process.execPath, [BIN, 'migrate', '--from-sqlite', source.file, '--database-url', url], { stdio: 'ignore' });
    const exited = new Promise((resolve) => proc.on('exit', resolve));
    const inserting = async () =>
      (
        await adminPool().query(
          'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_xid IS NOT NULL AND query LIKE \'INSERT INTO "events"%\'',
          [database],
        )
      ).rowCount! > 0;
    const deadline = Date.now() + 30_000;
    while (!(await inserting())) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 10));
    }
    proc.kill('SIGKILL');
    await exited;
    // The server rolls the transaction back once it sees the connection gone.
    while (
      (await adminPool().query('SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND backend_xid IS NOT NULL', [database])).rowCount! > 0
    ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    for (const t of ['organizations', 'events', 'service_meta']) expect(await query(url, `SELECT 1 FROM ${t} LIMIT 1`), t).toEqual([]);

    const ok = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', url, '--json']);
    expect(ok.code).toBe(0);
    const events = (JSON.parse(ok.stdout).tables as { table: string; source: number }[]).find((t) => t.table === 'events')!;
    expect(events.source).toBeGreaterThan(60_000);
    expect(await query(url, 'SELECT count(*)::int AS n FROM events')).toEqual([{ n: events.source }]);
  });

  it('refuses a target that holds other borderd data, changing nothing', async () => {
    const source = await sourceCopy();
    const url = await freshPostgresDatabase();
    const config = loadConfig({ env: {}, flags: { 'database.url': url, dataDir: tempDir(), 'log.level': 'silent' } });
    const other = await createContext(config, { log: silent() });
    opened.push(other);
    await createOrganization(other, 'Already here');
    const { code, stdout, stderr } = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', url]);
    expect(code).toBe(1);
    oneLine(stderr);
    expect(stderr).toContain('already holds borderd data');
    expect(stderr).toContain('organizations');
    expect(stdout).toBe('');
    expect(await other.db.all('SELECT name FROM organizations')).toEqual([{ name: 'Already here' }]);
  });

  it('says in one line, exit code 2, that the server cannot be reached or refuses the password', async () => {
    const source = await sourceCopy();
    const url = await emptyPostgresDatabase();
    const wrong = new URL(url);
    wrong.password = 'not-the-password';
    const refused = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', wrong.toString()]);
    expect(refused.code).toBe(2);
    oneLine(refused.stderr);
    expect(refused.stderr).toContain('the password was refused');
    expect(refused.stderr).not.toContain('not-the-password');

    const closed = new URL(url);
    closed.port = '1';
    const unreachable = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', closed.toString()]);
    expect(unreachable.code).toBe(2);
    oneLine(unreachable.stderr);
    expect(unreachable.stderr).toContain('the connection was refused');
    expect(unreachable.stderr).not.toContain(`:${new URL(url).password}@`);
  });

  it('refuses a source at an older schema version, saying to migrate it first', async () => {
    const dir = tempDir();
    const file = join(dir, 'old.db');
    const old = openSqlite(file);
    const latest = listMigrations('sqlite').at(-1)!.version;
    // Versions need not be consecutive: the one before the latest is the source's.
    const previous = listMigrations('sqlite').at(-2)!.version;
    await migrate(
      old,
      listMigrations('sqlite').filter((m) => m.version < latest),
    );
    await old.close();
    const url = await emptyPostgresDatabase();
    const { code, stderr } = await runCli(['migrate', '--from-sqlite', file, '--database-url', url]);
    expect(code).toBe(1);
    oneLine(stderr);
    expect(stderr).toContain(`schema version ${previous}`);
    expect(stderr).toContain(`borderd migrate --db ${file}`);
    // Refused before the target was touched.
    expect(await query(url, "SELECT 1 FROM information_schema.tables WHERE table_name = 'organizations'")).toEqual([]);
  });

  it('says in one line what is wrong with the input, before touching the target', async () => {
    const source = await sourceCopy();
    const url = await emptyPostgresDatabase();
    const notDb = join(tempDir(), 'notes.db');
    writeFileSync(notDb, 'these are notes, not a database\n'.repeat(100));
    const otherSqlite = join(tempDir(), 'other.db');
    await openSqlite(otherSqlite).exec('CREATE TABLE things (a TEXT)');
    const wrongKey = join(tempDir(), 'wrong.key');
    writeFileSync(wrongKey, randomBytes(32).toString('base64') + '\n');
    const cases: [string, string[], number, string][] = [
      ['a missing file', ['--from-sqlite', join(source.dir, 'nope.db'), '--database-url', url], 2, 'no such file'],
      ['a file that is not SQLite', ['--from-sqlite', notDb, '--database-url', url], 2, 'is not a SQLite database'],
      ['a SQLite file that is not borderd', ['--from-sqlite', otherSqlite, '--database-url', url], 2, 'is not a borderd database'],
      ['--db too', ['--from-sqlite', source.file, '--db', source.file, '--database-url', url], 2, 'leave --db out'],
      ['no target', ['--from-sqlite', source.file], 2, '--database-url'],
      ['a wrong master key', ['--from-sqlite', source.file, '--database-url', url, '--master-key-file', wrongKey], 2, 'not the one'],
      [
        'a missing master key',
        ['--from-sqlite', source.file, '--database-url', url, '--master-key-file', `${wrongKey}.gone`],
        2,
        'cannot read',
      ],
    ];
    for (const [what, args, exit, says] of cases) {
      const { code, stdout, stderr } = await runCli(['migrate', ...args]);
      expect(code, what).toBe(exit);
      oneLine(stderr);
      expect(stderr, what).toContain(says);
      expect(stdout, what).toBe('');
    }
    expect(await query(url, "SELECT 1 FROM information_schema.tables WHERE table_name = 'organizations'")).toEqual([]);
  });

  it('takes the master key from BORDERD_MASTER_KEY when the file is elsewhere, and says where the daemon must find it', async () => {
    const source = await sourceCopy();
    const key = readFileSync(source.keyFile, 'utf8').trim();
    const moved = join(tempDir(), 'kept-elsewhere.key');
    writeFileSync(moved, key + '\n');
    writeFileSync(source.keyFile, randomBytes(32).toString('base64') + '\n'); // not the source's key any more
    const url = await emptyPostgresDatabase();
    const run = await runCli(['migrate', '--from-sqlite', source.file, '--database-url', url], { BORDERD_MASTER_KEY: key });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(key);
    expect(run.stdout).toMatch(/master key: the daemon's key \(security\.masterKey \(BORDERD_MASTER_KEY\)\) is the one/);
    expect(await hasTable((await openTarget(url, moved)).db, 'organizations')).toBe(true);
  });
});

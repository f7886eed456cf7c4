import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { receiveNotification } from '../../src/inbound/intake.js';
import { inboundNotificationSchema } from '../../src/inbound/notification.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { getInboundEventByEventId } from '../../src/store/inbound-events.js';
import { makeContext, type TestContext } from '../support/context.js';
import { pkcs12FromPem } from '../support/pkcs12.js';
import { runCli } from '../support/process.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

/** The real compiled CLI (needs `npm run build`) against a database this test fills in-process. */
const key = makeKeyPair();
const stranger = makeKeyPair();

async function fixture() {
  const ctx = await makeContext({ 'inbound.decryptRetrySeconds': [] });
  const org = await createOrganization(ctx, 'Acme');
  ctx.config.inbound.icaOrganizations = { '5000': org.id };
  await importCardNetworkKey(ctx, org.id, Buffer.from(key.privatePem));
  const receive = async (eventId: string, eventType: string, to = key) => {
    const body = notification(await joseToken({ eventId }, to), { eventId, eventType, ica: '5000' });
    await receiveNotification(ctx, inboundNotificationSchema.parse(body), JSON.stringify(body));
  };
  await receive('a-1', 'TOKEN_STATUS_UPDATED');
  await receive('b-1', 'TOKEN_DELETED');
  await receive('a-2', 'TOKEN_STATUS_UPDATED');
  await receive('x-1', 'TOKEN_STATUS_UPDATED', stranger); // unknown kid, no retries: failed
  await decryptDue(ctx);
  // The CLI must find the database as a command line names it, with the config file's ica mapping.
  const cli = async (args: string[]) => await runCli([...args, ...databaseArgs(ctx), '--json'], cliEnv(ctx));
  return { ctx, org, cli };
}

/** The options that name the test's database to a command: `--db FILE`, or `--database-url URL` on PostgreSQL. */
const databaseArgs = (ctx: TestContext): string[] =>
  ctx.config.database.url !== undefined ? ['--database-url', ctx.config.database.url] : ['--db', ctx.config.database.path];

/** On PostgreSQL the data directory (the master key) is not beside a database file: the command is told where it is. */
const cliEnv = (ctx: TestContext): Record<string, string> =>
  ctx.config.database.url !== undefined ? { BORDERD_DATA_DIR: ctx.dataDir } : {};

describe('borderd inbound (CLI)', () => {
  it('list --event-type shows only that eventType, oldest first', async () => {
    const { cli } = await fixture();
    const r = await cli(['inbound', 'list', '--event-type', 'TOKEN_STATUS_UPDATED']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { eventId: string; eventType: string }[];
    expect(rows.map((e) => e.eventId)).toEqual(['a-1', 'a-2', 'x-1']);
    expect(new Set(rows.map((e) => e.eventType))).toEqual(new Set(['TOKEN_STATUS_UPDATED']));
    const other = await cli(['inbound', 'list', '--event-type', 'TOKEN_DELETED', '--state', 'decrypted']);
    expect((JSON.parse(other.stdout) as { eventId: string }[]).map((e) => e.eventId)).toEqual(['b-1']);
  });

  it('show prints the copies a redelivery replaced, also without --json', async () => {
    const { ctx, org } = await fixture();
    const genuine = await joseToken({ ok: 'genuine' }, key);
    const parts = genuine.split('.');
    parts[3] = Buffer.from(parts[3]!, 'base64url').reverse().toString('base64url');
    for (const token of [parts.join('.'), genuine]) {
      const body = notification(token, { eventId: 'r-1', ica: '5000' });
      await receiveNotification(ctx, inboundNotificationSchema.parse(body), JSON.stringify(body));
      await decryptDue(ctx);
    }
    expect(await getInboundEventByEventId(ctx.db, 'r-1')).toMatchObject({ state: 'decrypted', orgId: org.id });
    const r = await runCli(['inbound', 'show', 'r-1', ...databaseArgs(ctx)], cliEnv(ctx));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('[object Object]');
    expect(r.stdout).toMatch(/replacedCopies:\n.*failureCode.*\n\s*1\s.*decryption_failed/);
    expect(r.stdout).toMatch(/heldCopies:\n\(none\)/);
    const none = await runCli(['inbound', 'show', 'a-1', ...databaseArgs(ctx)], cliEnv(ctx));
    expect(none.stdout).toMatch(/replacedCopies:\n\(none\)/);

    // A redelivery with other bytes while the first copy is still queued is held, and listed.
    for (const payload of [{ copy: 1 }, { copy: 2 }]) {
      const body = notification(await joseToken(payload, key), { eventId: 'h-1', ica: '5000', eventType: `COPY_${payload.copy}` });
      await receiveNotification(ctx, inboundNotificationSchema.parse(body), JSON.stringify(body));
    }
    const held = await runCli(['inbound', 'show', 'h-1', ...databaseArgs(ctx)], cliEnv(ctx));
    expect(held.code, held.stderr).toBe(0);
    expect(held.stdout).toMatch(/heldCopies:\n.*eventType.*receivedAt.*\n\s*1\s+COPY_2\s/);
  });

  it('retry EVENT_ID requeues that one failed notification with a fresh attempt count', async () => {
    const { ctx, cli } = await fixture();
    expect(await getInboundEventByEventId(ctx.db, 'x-1')).toMatchObject({ state: 'failed', failureCode: 'unknown_kid', attempts: 1 });
    const r = await cli(['inbound', 'retry', 'x-1']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ requeued: 1 });
    expect(await getInboundEventByEventId(ctx.db, 'x-1')).toMatchObject({ state: 'received', attempts: 0 });
    expect((await getInboundEventByEventId(ctx.db, 'a-1'))!.state).toBe('decrypted');

    const decrypted = await cli(['inbound', 'retry', 'a-1']);
    expect(decrypted.code).toBe(1);
    expect(JSON.parse(decrypted.stdout).error).toMatchObject({ status: 409 });
    const unknown = await cli(['inbound', 'retry', 'nope']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({ status: 404 });
    const neither = await cli(['inbound', 'retry']);
    expect(neither.code).toBe(2);
  });

  it("purge --state deletes that state's notifications received before --before; a bad time is exit 2", async () => {
    const { ctx, cli } = await fixture();
    const future = await cli(['inbound', 'purge', '--state', 'failed', '--before', '1d']);
    expect(JSON.parse(future.stdout)).toEqual({ deleted: 0 });
    const r = await cli(['inbound', 'purge', '--state', 'failed']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ deleted: 1 });
    expect(await getInboundEventByEventId(ctx.db, 'x-1')).toBeUndefined();
    expect((await getInboundEventByEventId(ctx.db, 'a-1'))!.state).toBe('decrypted');
    const bad = await cli(['inbound', 'purge', '--state', 'failed', '--before', 'yesterday']);
    expect([bad.code, bad.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect((await cli(['inbound', 'purge', '--state', 'received'])).code).toBe(2);
  });
});

describe('borderd keys card-network import (CLI)', () => {
  const require = createRequire(import.meta.url);

  it('imports a DER PKCS#1 key and a .p12 keystore with --keystore-password or BORDERD_KEY_PASSPHRASE', async () => {
    const { ctx, org } = await fixture();
    const dir = ctx.dataDir;
    const db = [...databaseArgs(ctx), '--json'];
    const run = async (file: string, extra: string[] = [], env: Record<string, string> = {}) =>
      await runCli(['keys', 'card-network', 'import', '--org', org.id, '--private-key', file, ...extra, ...db], { ...cliEnv(ctx), ...env });

    const der = makeKeyPair();
    writeFileSync(join(dir, 'key.der'), der.privateKey.export({ type: 'pkcs1', format: 'der' }));
    const fromDer = await run(join(dir, 'key.der'));
    expect(fromDer.code, fromDer.stdout + fromDer.stderr).toBe(0);
    expect(JSON.parse(fromDer.stdout)).toMatchObject({ kid: der.kid, source: 'imported' });

    const p12 = (pair: typeof der) => pkcs12FromPem(pair.privatePem, 'keystore-pw', 'aes256');
    const viaFlag = makeKeyPair();
    writeFileSync(join(dir, 'flag.p12'), p12(viaFlag));
    const noPassword = await run(join(dir, 'flag.p12'));
    expect(noPassword.code).toBe(1);
    expect(JSON.parse(noPassword.stdout).error).toMatchObject({
      status: 400,
      code: 'invalid_private_key',
      detail: expect.stringMatching(/--keystore-password/),
    });
    const withFlag = await run(join(dir, 'flag.p12'), ['--keystore-password', 'keystore-pw']);
    expect(withFlag.code, withFlag.stdout + withFlag.stderr).toBe(0);
    expect(JSON.parse(withFlag.stdout)).toMatchObject({ kid: viaFlag.kid });

    const viaEnv = makeKeyPair();
    writeFileSync(join(dir, 'env.pfx'), p12(viaEnv));
    const withEnv = await run(join(dir, 'env.pfx'), [], { BORDERD_KEY_PASSPHRASE: 'keystore-pw' });
    expect(withEnv.code, withEnv.stdout + withEnv.stderr).toBe(0);
    expect(JSON.parse(withEnv.stdout)).toMatchObject({ kid: viaEnv.kid });

    // A wrong password and a keystore with one byte altered fail its integrity MAC: bad usage, one
    // line on stderr, exit 2.
    const wrong = await run(join(dir, 'flag.p12'), ['--keystore-password', 'not-it']);
    expect([wrong.code, wrong.stdout, wrong.stderr]).toEqual([
      2,
      '',
      expect.stringMatching(
        /^borderd: .*flag\.p12: the keystore does not decrypt with this password, or was altered .*MAC does not verify\n$/,
      ),
    ]);
    const altered = p12(makeKeyPair());
    const at = Math.floor(altered.length / 2);
    altered[at] = altered[at]! ^ 0x01;
    writeFileSync(join(dir, 'altered.p12'), altered);
    const tampered = await run(join(dir, 'altered.p12'), ['--keystore-password', 'keystore-pw']);
    expect([tampered.code, tampered.stdout, tampered.stderr.split('\n').length]).toEqual([2, '', 2]);
    expect(tampered.stderr).toMatch(/altered\.p12: .*integrity MAC does not verify/);

    // A file that is not there is bad usage, said in one line, as for the import commands.
    const missing = await run(join(dir, 'none.pem'));
    expect([missing.code, missing.stderr.trim()]).toEqual([
      2,
      expect.stringMatching(/^borderd: cannot read .*none\.pem: ENOENT: no such file or directory/),
    ]);

    const help = execFileSync(
      process.execPath,
      [join(dirname(require.resolve('../../package.json')), 'bin', 'borderd.js'), 'keys', 'card-network', 'import', '--help'],
      { encoding: 'utf8' },
    );
    expect(help).toMatch(/--keystore-password/);
    // Help is wrapped to the terminal's width, between words: compare it as one line.
    expect(help.replace(/\s+/g, ' ')).toMatch(/openssl pkcs12 -in k\.p12 -nocerts -nodes -out key\.pem/);
  });
});

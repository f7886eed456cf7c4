import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { createDecryptWorker } from '../../src/inbound/decrypt-worker.js';
import { mapIca, matchPendingIcas } from '../../src/inbound/ica-mapping.js';
import { importCardNetworkKey, generateCardNetworkKey, removeCardNetworkKey } from '../../src/inbound/keyring.js';
import { retryInbound, showInbound } from '../../src/inbound/event-queue.js';
import { getInboundEventByEventId, listIcaMappings, listReplacedCopies } from '../../src/store/inbound-events.js';
import { makeApi, makeContext, tempDir, type TestContext } from '../support/context.js';
import { turnsDuring } from '../support/event-loop.js';
import { holdWriteLock } from '../support/write-lock.js';
import { onPostgres } from '../support/postgres.js';
import { cardNetworkLibraryToken, joseToken, makeKeyPair, notification, selfSignedCertificate } from './jwe-fixtures.js';

/** For what SQLite alone has (its write lock, its query plans): skipped on the postgres project. */
const itOnSqlite = it.skipIf(onPostgres);

const PATH = '/v1/webhooks/card-network';
const right = makeKeyPair();
const wrong = makeKeyPair();

async function setup(overrides: Record<string, unknown> = {}) {
  const ctx = await makeContext({ 'inbound.decryptRetrySeconds': [10, 60], ...overrides });
  const org = await createOrganization(ctx, 'Acme');
  ctx.config.inbound.icaOrganizations = { '123456': org.id };
  const { http } = makeApi(ctx);
  const post = (body: unknown) => http.post(PATH).send(body as object);
  return { ctx, org, http, post };
}

const state = async (ctx: TestContext, eventId: string) => (await getInboundEventByEventId(ctx.db, eventId))!;

describe('inbound decryption', () => {
  it("gives the event loop turns while it works through a queue of the library's tokens (their unwrap off the main thread)", async () => {
    const { ctx, org, post } = await setup();
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const cert = selfSignedCertificate(right, tempDir());
    for (let i = 0; i < 5; i++)
      await post(notification({ encryptedValue: cardNetworkLibraryToken({ n: i }, cert) }, { eventId: `e-${i}` }));
    const { value: counts, turns } = await turnsDuring(decryptDue(ctx));
    expect(counts).toMatchObject({ decrypted: 5 });
    expect(turns).toBeGreaterThanOrEqual(5);
  });

  // SQLite's write lock; PostgreSQL has none.
  itOnSqlite(
    'never waits in SQLite for a write lock another process holds: the pass ends, the rows stay due, a later pass decrypts them',
    async () => {
      const { ctx, org, post } = await setup({ 'database.busyTimeoutMs': 3000 });
      await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
      for (let i = 0; i < 3; i++) await post(notification(await joseToken({ n: i }, right), { eventId: `l-${i}` }));
      // One for an ica mapped only after it arrived: the pass's matching queues it.
      await post(notification(await joseToken({ n: 9 }, right), { eventId: 'l-unmatched', ica: '999999' }));
      ctx.config.inbound.icaOrganizations = { '123456': org.id, '999999': org.id };
      const holder = holdWriteLock(ctx.db.location); // a CLI import writing a large file, say
      try {
        // Waiting in SQLite instead would hold this thread for the busy timeout, then throw SQLITE_BUSY.
        expect(await matchPendingIcas(ctx)).toBe(0);
        expect(await decryptDue(ctx)).toMatchObject({ decrypted: 0, busy: 1 });
        for (let i = 0; i < 3; i++) expect(await state(ctx, `l-${i}`)).toMatchObject({ state: 'received', attempts: 0 });
      } finally {
        holder.release();
      }
      expect(await matchPendingIcas(ctx)).toBe(1);
      expect(await decryptDue(ctx)).toMatchObject({ decrypted: 4, busy: 0 });
    },
  );

  it('records nothing made with the old organization for rows an ica mapping moved while the pass ran', async () => {
    const { ctx, org, post } = await setup();
    const other = await createOrganization(ctx, 'Other');
    await importCardNetworkKey(ctx, other.id, Buffer.from(right.privatePem)); // the key is the other organization's
    ctx.config.inbound.icaOrganizations = {};
    await mapIca(ctx, '123456', org.id); // mapped to the wrong organization, in the database, as an operator does
    for (let i = 0; i < 3; i++) await post(notification(await joseToken({ n: i }, right), { eventId: `m-${i}` }));
    const pass = decryptDue(ctx); // starts with the rows as mapped to Acme, which has no key
    await new Promise((r) => setImmediate(r));
    await mapIca(ctx, '123456', other.id); // the operator's fix, between two rows of the pass
    await pass;
    for (let i = 1; i < 3; i++)
      expect(await state(ctx, `m-${i}`)).toMatchObject({ orgId: other.id, state: 'received', attempts: 0, failureCode: null });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 3 });
  });

  it('decrypts a jose token and a card-network library token, and seals the payload at rest', async () => {
    const { ctx, org, post } = await setup();
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const cert = selfSignedCertificate(right, tempDir());
    await post(notification(await joseToken({ from: 'jose', pan: '5555' }, right), { eventId: 'e-jose' }));
    await post(notification({ encryptedValue: cardNetworkLibraryToken({ from: 'library', pan: '4444' }, cert) }, { eventId: 'e-lib' }));
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 2, failed: 0 });
    expect(await showInbound(ctx, 'e-jose')).toMatchObject({
      state: 'decrypted',
      kid: right.kid,
      payload: { from: 'jose', pan: '5555' },
      organizationId: org.id,
    });
    expect((await showInbound(ctx, 'e-lib')).payload).toEqual({ from: 'library', pan: '4444' });
    const row = await state(ctx, 'e-lib');
    expect(row.payloadEnc).toMatch(/^v1\./);
    expect(row.payloadEnc).not.toContain('library');
    expect(ctx.logs.text()).not.toContain('4444');
  });

  it('unknown kid: retried on schedule, failed with its reason, decrypted after the key is imported and the event retried', async () => {
    const { ctx, org, post } = await setup();
    await post(notification(await joseToken({ ok: 1 }, right)));
    expect(await decryptDue(ctx)).toMatchObject({ retry: 1 });
    expect(await state(ctx, 'ev-1')).toMatchObject({ state: 'received', attempts: 1, failureCode: 'unknown_kid', kid: right.kid });
    expect(await decryptDue(ctx)).toMatchObject({ retry: 0, failed: 0 }); // not due yet
    ctx.clock.advance(10_000);
    expect(await decryptDue(ctx)).toMatchObject({ retry: 1 });
    ctx.clock.advance(60_000);
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1 });
    const failed = await state(ctx, 'ev-1');
    expect(failed).toMatchObject({ state: 'failed', attempts: 3, failureCode: 'unknown_kid' });
    expect(failed.failureReason).toContain(right.kid);

    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    expect(await retryInbound(ctx, { eventId: 'ev-1' })).toEqual({ requeued: 1 });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect(await showInbound(ctx, 'ev-1')).toMatchObject({ state: 'decrypted', payload: { ok: 1 }, failureCode: null });
  });

  it('wrong key under the kid: failed as key_mismatch, decrypted once the right key replaces it', async () => {
    const { ctx, org, post } = await setup({ 'inbound.decryptRetrySeconds': [] });
    // The sender names our kid but encrypted for another certificate (a stale one, say).
    await importCardNetworkKey(ctx, org.id, Buffer.from(wrong.privatePem), { kid: 'portal-key-1' });
    await post(notification(await joseToken({ ok: 2 }, right, { kid: 'portal-key-1' })));
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1 });
    expect(await state(ctx, 'ev-1')).toMatchObject({ state: 'failed', failureCode: 'key_mismatch', kid: 'portal-key-1' });

    await removeCardNetworkKey(ctx, 'portal-key-1', org.id);
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem), { kid: 'portal-key-1' });
    expect(await retryInbound(ctx, { allFailed: true })).toEqual({ requeued: 1 });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect((await showInbound(ctx, 'ev-1')).payload).toEqual({ ok: 2 });
  });

  it('tampered tag: failed at once (no automatic retry), and a retry of the same bytes fails again', async () => {
    const { ctx, org, post } = await setup();
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const parts = (await joseToken({ ok: 3 }, right)).split('.');
    const tag = Buffer.from(parts[4]!, 'base64url');
    tag[3] = tag[3]! ^ 0x80;
    parts[4] = tag.toString('base64url');
    await post(notification(parts.join('.')));
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1 });
    expect(await state(ctx, 'ev-1')).toMatchObject({ state: 'failed', failureCode: 'decryption_failed', attempts: 1 });
    expect((await state(ctx, 'ev-1')).failureReason).toMatch(/authentication tag/);
    await retryInbound(ctx, { eventId: 'ev-1' });
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1 });
  });

  it('a redelivered genuine copy replaces a copy that failed for its content, and decrypts', async () => {
    const { ctx, org, post } = await setup();
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const genuine = await joseToken({ ok: 'genuine' }, right);
    const parts = genuine.split('.');
    parts[3] = Buffer.from(parts[3]!, 'base64url').reverse().toString('base64url');
    await post(notification(parts.join('.')));
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1 });
    const again = await post(notification(genuine));
    expect(again.body).toEqual({ received: true, eventId: 'ev-1', duplicate: true });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect((await showInbound(ctx, 'ev-1')).payload).toEqual({ ok: 'genuine' });
    expect((await state(ctx, 'ev-1')).rawBody).toBe(JSON.stringify(notification(genuine)));
  });

  it('a tampered encrypted key fails at once as decryption_failed; the genuine redelivery replaces it and the bad bytes are kept', async () => {
    const { ctx, org, post } = await setup();
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const genuine = await joseToken({ ok: 'genuine-key' }, right);
    const parts = genuine.split('.');
    const wrapped = Buffer.from(parts[1]!, 'base64url');
    wrapped[7] = wrapped[7]! ^ 0x40;
    parts[1] = wrapped.toString('base64url');
    const tampered = notification(parts.join('.'), { eventType: 'FIRST_COPY' });
    await post(tampered);
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1, retry: 0 });
    expect(await state(ctx, 'ev-1')).toMatchObject({ state: 'failed', failureCode: 'decryption_failed', attempts: 1, kid: right.kid });
    const failedAt = await state(ctx, 'ev-1');

    ctx.clock.advance(5_000);
    expect((await post(notification(genuine))).body).toEqual({ received: true, eventId: 'ev-1', duplicate: true });
    expect(await state(ctx, 'ev-1')).toMatchObject({
      state: 'received',
      attempts: 0,
      failureCode: null,
      eventType: 'TOKEN_STATUS_UPDATED',
    });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    const shown = await showInbound(ctx, 'ev-1');
    expect(shown).toMatchObject({ state: 'decrypted', payload: { ok: 'genuine-key' }, failureCode: null });
    expect(shown.replacedCopies).toEqual([
      expect.objectContaining({
        seq: 1,
        eventType: 'FIRST_COPY',
        failureCode: 'decryption_failed',
        attempts: 1,
        kid: right.kid,
        receivedAt: failedAt.receivedAt,
      }),
    ]);
    expect(shown.replacedCopies[0]).not.toHaveProperty('rawBody');
    expect((await listReplacedCopies(ctx.db, failedAt.id))[0]!.rawBody).toBe(JSON.stringify(tampered));
  });

  it('keeps every replaced copy in order when a redelivery fails again', async () => {
    const { ctx, org, post } = await setup();
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const genuine = await joseToken({ ok: 'third' }, right);
    const broken = (n: number) => {
      const parts = genuine.split('.');
      const tag = Buffer.from(parts[4]!, 'base64url');
      tag[n] = tag[n]! ^ 0x01;
      parts[4] = tag.toString('base64url');
      return notification(parts.join('.'));
    };
    await post(broken(0));
    await decryptDue(ctx);
    ctx.clock.advance(1_000);
    await post(broken(1));
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1 });
    ctx.clock.advance(1_000);
    await post(notification(genuine));
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    const copies = await listReplacedCopies(ctx.db, (await state(ctx, 'ev-1')).id);
    expect(copies.map((c) => [c.seq, c.rawBody])).toEqual([
      [1, JSON.stringify(broken(0))],
      [2, JSON.stringify(broken(1))],
    ]);
    expect(copies[1]!.receivedAt).toBe(copies[0]!.replacedAt);
  });

  it('a redelivery does not replace a copy that failed for want of a key', async () => {
    const { ctx, post } = await setup({ 'inbound.decryptRetrySeconds': [] });
    const first = notification(await joseToken({ n: 1 }, right));
    await post(first);
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1 });
    await post(notification(await joseToken({ n: 2 }, right)));
    expect(await state(ctx, 'ev-1')).toMatchObject({ state: 'failed', failureCode: 'unknown_kid', rawBody: JSON.stringify(first) });
    // Held instead, in case the stored copy turns out altered once its key is imported.
    expect((await showInbound(ctx, 'ev-1')).heldCopies).toHaveLength(1);
  });

  it('a body sent with a UTF-8 byte order mark, which intake accepts, is stored as received and decrypted', async () => {
    const { ctx, org, http } = await setup({ 'inbound.decryptRetrySeconds': [] });
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const raw = `\uFEFF${JSON.stringify(notification(await joseToken({ ok: 'bom' }, right)))}`;
    const res = await http.post(PATH).set('content-type', 'application/json').send(raw);
    expect(res.status).toBe(200);
    expect((await state(ctx, 'ev-1')).rawBody).toBe(raw);
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect((await showInbound(ctx, 'ev-1')).payload).toEqual({ ok: 'bom' });
  });

  it('an unmatched ica waits, then is decrypted once the ica is mapped', async () => {
    const { ctx, org, post } = await setup();
    const key = await generateCardNetworkKey(ctx, org.id);
    const publicOnly = { publicKey: (await import('node:crypto')).createPublicKey(key.publicKey), kid: key.kid };
    await post(notification(await joseToken({ ok: 4 }, publicOnly), { ica: '999' }));
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 0 });
    expect((await state(ctx, 'ev-1')).state).toBe('unmatched');
    await expect(retryInbound(ctx, { eventId: 'ev-1' })).rejects.toThrow(/maps to no organization/);
    expect((await mapIca(ctx, '999', org.id)).requeued).toBe(1);
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect((await showInbound(ctx, 'ev-1')).payload).toEqual({ ok: 4 });
  });

  it('remapping an ica moves its notifications not decrypted yet to the new organization; decrypted ones stay', async () => {
    const { ctx, org, post } = await setup();
    const other = await createOrganization(ctx, 'Other');
    const key = await generateCardNetworkKey(ctx, other.id);
    const publicOnly = { publicKey: (await import('node:crypto')).createPublicKey(key.publicKey), kid: key.kid };
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    await mapIca(ctx, '999', org.id); // the wrong organization for the first notification's key
    await post(notification(await joseToken({ ok: 'other' }, publicOnly), { ica: '999', eventId: 'ev-other' }));
    await post(notification(await joseToken({ ok: 'acme' }, right), { ica: '999', eventId: 'ev-acme' }));
    ctx.clock.advance(1);
    await decryptDue(ctx);
    ctx.clock.advance(10_000);
    await decryptDue(ctx);
    ctx.clock.advance(60_000);
    await decryptDue(ctx);
    expect(await state(ctx, 'ev-other')).toMatchObject({ state: 'failed', failureCode: 'unknown_kid', orgId: org.id });
    expect(await state(ctx, 'ev-acme')).toMatchObject({ state: 'decrypted', orgId: org.id });

    expect((await mapIca(ctx, '999', other.id)).requeued).toBe(1);
    expect(await state(ctx, 'ev-other')).toMatchObject({ state: 'received', attempts: 0, orgId: other.id });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect(await showInbound(ctx, 'ev-other')).toMatchObject({ organizationId: other.id, payload: { ok: 'other' } });
    expect(await state(ctx, 'ev-acme')).toMatchObject({ state: 'decrypted', orgId: org.id });
    // Mapping it to the same organization again moves nothing.
    expect((await mapIca(ctx, '999', other.id)).requeued).toBe(0);
  });

  it('refuses a mapping the config file overrides with an organization that does not exist, and writes nothing', async () => {
    const { ctx, org } = await setup();
    ctx.config.inbound.icaOrganizations = { '777': 'org_gone' };
    await expect(mapIca(ctx, '777', org.id)).rejects.toThrow(/org_gone, which does not exist/);
    expect(await listIcaMappings(ctx.db)).toEqual([]);
  });

  it('a duplicate eventId is decrypted once', async () => {
    const { ctx, org, post } = await setup();
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const body = notification(await joseToken({ ok: 5 }, right));
    await post(body);
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    const first = await state(ctx, 'ev-1');
    await post(body);
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 0 });
    expect(await state(ctx, 'ev-1')).toEqual(first);
  });

  it('the worker decrypts as soon as intake commits', async () => {
    const { ctx, org, post } = await setup({ 'inbound.pollIntervalMs': 3_600_000 });
    await importCardNetworkKey(ctx, org.id, Buffer.from(right.privatePem));
    const worker = createDecryptWorker(ctx);
    const startup = ctx.signals.inboundPassed.next();
    await worker.start();
    try {
      await startup; // the start-up pass
      const passed = ctx.signals.inboundPassed.next();
      await post(notification(await joseToken({ ok: 6 }, right)));
      const counts = await passed;
      expect(counts).toMatchObject({ decrypted: 1 });
      expect((await showInbound(ctx, 'ev-1')).payload).toEqual({ ok: 6 });
    } finally {
      await worker.stop();
    }
  });
});

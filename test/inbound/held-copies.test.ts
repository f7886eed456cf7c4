import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { showInbound } from '../../src/inbound/event-queue.js';
import { mapIca } from '../../src/inbound/ica-mapping.js';
import { MAX_HELD_COPIES, redeliveryAction } from '../../src/inbound/intake.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import {
  copyReceivedAt,
  getInboundEventByEventId,
  listHeldCopies,
  listReplacedCopies,
  recordAttempt,
} from '../../src/store/inbound-events.js';
import { isoAt } from '../../src/domain/clock.js';
import { makeApi, makeContext, type TestContext } from '../support/context.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

// A redelivery that arrives while the stored copy is still undecided (queued, unmatched, waiting
// for a key) is held, so that a stored copy which then fails as altered leaves the genuine bytes to
// decrypt. The card network re-encrypts a redelivery, so a genuine one has other bytes.

const PATH = '/v1/webhooks/card-network';
const key = makeKeyPair();

async function setup() {
  const ctx = await makeContext({ 'inbound.decryptRetrySeconds': [10] });
  const org = await createOrganization(ctx, 'Acme');
  ctx.config.inbound.icaOrganizations = { '123456': org.id };
  await importCardNetworkKey(ctx, org.id, Buffer.from(key.privatePem));
  const { http } = makeApi(ctx);
  const post = async (body: unknown) => {
    const res = await http.post(PATH).send(body as object);
    expect(res.status).toBe(200);
    return res.body as { duplicate: boolean };
  };
  return { ctx, org, post };
}

const row = async (ctx: TestContext, eventId = 'ev-1') => (await getInboundEventByEventId(ctx.db, eventId))!;

/** The token with one bit of its authentication tag flipped: decrypts as `decryption_failed`. */
function altered(token: string, bit = 0): string {
  const parts = token.split('.');
  const tag = Buffer.from(parts[4]!, 'base64url');
  tag[bit] = tag[bit]! ^ 0x01;
  parts[4] = tag.toString('base64url');
  return parts.join('.');
}

describe('redeliveryAction: what a second copy does to the stored one', () => {
  const stored = { state: 'received' as const, orgId: 'org_1', failureCode: null, rawBody: 'a' };
  it.each([
    ['queued, other bytes', 'hold', stored],
    ['queued, the same bytes', 'ignore', { ...stored, rawBody: 'b' }],
    ['unmatched, other bytes', 'hold', { ...stored, state: 'unmatched' as const, orgId: null }],
    ['retrying for want of a key', 'hold', { ...stored, failureCode: 'unknown_kid' }],
    ['failed for want of a key', 'hold', { ...stored, state: 'failed' as const, failureCode: 'unknown_kid' }],
    ['failed for its content', 'replace', { ...stored, state: 'failed' as const, failureCode: 'decryption_failed' }],
    [
      'failed for its content, the same bytes',
      'replace',
      { ...stored, state: 'failed' as const, failureCode: 'malformed_jwe', rawBody: 'b' },
    ],
    ['decrypted', 'ignore', { ...stored, state: 'decrypted' as const }],
  ])('%s: %s', (_name, action, row) => {
    expect(redeliveryAction(row, { rawBody: 'b' })).toBe(action);
  });
});

describe('redelivered copies held while the stored copy is undecided', () => {
  it('an altered stored copy gives way to the genuine redelivery that arrived while it was queued', async () => {
    const { ctx, post } = await setup();
    const genuine = await joseToken({ ok: 'genuine' }, key);
    const first = notification(altered(genuine), { eventType: 'FIRST_COPY' });
    await post(first);
    const stored = await row(ctx);
    ctx.clock.advance(2_000);
    const redelivery = notification(genuine);
    expect(await post(redelivery)).toMatchObject({ duplicate: true });
    expect(await row(ctx)).toMatchObject({ state: 'received', rawBody: JSON.stringify(first) });
    const heldAt = (await listHeldCopies(ctx.db, stored.id))[0]!.receivedAt;
    expect((await showInbound(ctx, 'ev-1')).heldCopies).toEqual([
      { seq: 1, eventType: 'TOKEN_STATUS_UPDATED', eventCreatedDate: '2026-01-01T00:00:00.000Z', receivedAt: heldAt },
    ]);

    ctx.clock.advance(3_000);
    expect(await decryptDue(ctx)).toMatchObject({ replaced: 1, failed: 0 });
    expect(await row(ctx)).toMatchObject({ state: 'received', attempts: 0, failureCode: null, rawBody: JSON.stringify(redelivery) });
    expect(await listHeldCopies(ctx.db, stored.id)).toEqual([]);
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });

    const shown = await showInbound(ctx, 'ev-1');
    expect(shown).toMatchObject({ state: 'decrypted', payload: { ok: 'genuine' }, heldCopies: [] });
    expect(shown.replacedCopies).toEqual([
      expect.objectContaining({ seq: 1, eventType: 'FIRST_COPY', failureCode: 'decryption_failed', receivedAt: stored.receivedAt }),
    ]);
    expect((await listReplacedCopies(ctx.db, stored.id))[0]!.rawBody).toBe(JSON.stringify(first));
    // The copy that decrypted is recorded as having arrived when it was held, not when it was promoted.
    expect(await copyReceivedAt(ctx.db, stored.id)).toBe(heldAt);
  });

  it("a second process's outcome for the altered copy is not recorded against the genuine one put in its place", async () => {
    const { ctx, post } = await setup();
    const genuine = await joseToken({ ok: 'genuine' }, key);
    await post(notification(altered(genuine)));
    ctx.clock.advance(2_000);
    await post(notification(genuine)); // held
    // Another daemon read the row (the altered copy, 0 attempts) and is still working on it ...
    const seenElsewhere = await row(ctx);
    // ... while this one fails it for its content and puts the held genuine copy in its place (0 attempts again).
    expect(await decryptDue(ctx)).toMatchObject({ replaced: 1 });
    const late = await recordAttempt(
      ctx.db,
      seenElsewhere.id,
      { attempts: seenElsewhere.attempts, rawBody: seenElsewhere.rawBody, orgId: seenElsewhere.orgId! },
      {
        state: 'failed',
        kid: null,
        failureCode: 'decryption_failed',
        failureReason: 'the authentication tag does not match',
        nextAttemptAt: null,
        at: isoAt(ctx.clock.now()),
      },
    );
    expect(late).toBe(false);
    expect(await row(ctx)).toMatchObject({ state: 'received', attempts: 0, failureCode: null });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
  });

  it('held copies are tried oldest first, each failed one kept', async () => {
    const { ctx, post } = await setup();
    const genuine = await joseToken({ ok: 'third' }, key);
    for (const body of [altered(genuine, 0), altered(genuine, 1), genuine]) {
      await post(notification(body));
      ctx.clock.advance(1_000);
    }
    expect(await listHeldCopies(ctx.db, (await row(ctx)).id)).toHaveLength(2);
    expect(await decryptDue(ctx)).toMatchObject({ replaced: 1 });
    expect(await decryptDue(ctx)).toMatchObject({ replaced: 1 });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect((await showInbound(ctx, 'ev-1')).payload).toEqual({ ok: 'third' });
    expect((await listReplacedCopies(ctx.db, (await row(ctx)).id)).map((c) => c.rawBody)).toEqual([
      JSON.stringify(notification(altered(genuine, 0))),
      JSON.stringify(notification(altered(genuine, 1))),
    ]);
  });

  it('a stored copy that decrypts drops the copies held for it', async () => {
    const { ctx, post } = await setup();
    await post(notification(await joseToken({ ok: 'first' }, key)));
    await post(notification(await joseToken({ ok: 'second' }, key)));
    expect(await listHeldCopies(ctx.db, (await row(ctx)).id)).toHaveLength(1);
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1, replaced: 0 });
    expect(await showInbound(ctx, 'ev-1')).toMatchObject({ payload: { ok: 'first' }, heldCopies: [], replacedCopies: [] });
    // A redelivery after the decryption is a plain duplicate: nothing is held.
    await post(notification(await joseToken({ ok: 'third' }, key)));
    expect(await listHeldCopies(ctx.db, (await row(ctx)).id)).toEqual([]);
  });

  it('holds each distinct copy once, up to the limit, and nothing for the stored bytes or another ica', async () => {
    const { ctx, post } = await setup();
    const first = notification(await joseToken({ n: 0 }, key));
    await post(first);
    await post(first);
    await post(notification(await joseToken({ n: 0 }, key), { ica: '654321' }));
    expect(await listHeldCopies(ctx.db, (await row(ctx)).id)).toEqual([]);

    const again = notification(await joseToken({ n: 1 }, key));
    await post(again);
    await post(again);
    expect(await listHeldCopies(ctx.db, (await row(ctx)).id)).toHaveLength(1);
    for (let i = 2; i <= MAX_HELD_COPIES + 2; i++) await post(notification(await joseToken({ n: i }, key)));
    expect((await listHeldCopies(ctx.db, (await row(ctx)).id)).map((c) => c.seq)).toEqual(
      Array.from({ length: MAX_HELD_COPIES }, (_, i) => i + 1),
    );
  });

  it('a copy held while the ica was unmapped is tried when the stored copy fails after mapping', async () => {
    const { ctx, org, post } = await setup();
    ctx.config.inbound.icaOrganizations = {};
    const genuine = await joseToken({ ok: 'mapped' }, key);
    await post(notification(altered(genuine), { ica: '999' }));
    await post(notification(genuine, { ica: '999' }));
    expect((await row(ctx)).state).toBe('unmatched');
    expect(await listHeldCopies(ctx.db, (await row(ctx)).id)).toHaveLength(1);
    await mapIca(ctx, '999', org.id);
    expect(await decryptDue(ctx)).toMatchObject({ replaced: 1 });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect((await showInbound(ctx, 'ev-1')).payload).toEqual({ ok: 'mapped' });
  });

  it('a copy that fails for want of a key is retried, not replaced by what is held', async () => {
    const { ctx, org, post } = await setup();
    const other = makeKeyPair();
    const first = notification(await joseToken({ ok: 'other key' }, other));
    await post(first);
    await post(notification(await joseToken({ ok: 'held' }, other)));
    expect(await decryptDue(ctx)).toMatchObject({ retry: 1, replaced: 0 });
    expect(await row(ctx)).toMatchObject({ state: 'received', failureCode: 'unknown_kid', rawBody: JSON.stringify(first) });
    await importCardNetworkKey(ctx, org.id, Buffer.from(other.privatePem));
    ctx.clock.advance(10_000);
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect(await showInbound(ctx, 'ev-1')).toMatchObject({ payload: { ok: 'other key' }, heldCopies: [] });
  });

  it('a squatted eventId with a kid the organization lacks does not park the genuine copy held behind it', async () => {
    const { ctx, post } = await setup();
    const squatter = makeKeyPair();
    const squat = notification(await joseToken({ ok: 'squat' }, squatter));
    await post(squat);
    const genuine = notification(await joseToken({ ok: 'genuine' }, key));
    expect((await post(genuine)).duplicate).toBe(true);
    // The stored copy fails for want of a key; the held copy is tried in the same attempt and decrypts.
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    const shown = await showInbound(ctx, 'ev-1');
    expect(shown).toMatchObject({ state: 'decrypted', payload: { ok: 'genuine' }, heldCopies: [] });
    expect(shown.replacedCopies).toEqual([expect.objectContaining({ failureCode: 'unknown_kid', seq: 1 })]);
    expect((await row(ctx)).rawBody).toBe(JSON.stringify(genuine));
  });

  it('a held copy is tried on every key-related failure, also after the last retry and `inbound retry`', async () => {
    const { ctx, org, post } = await setup();
    ctx.config.inbound.decryptRetrySeconds = [];
    const other = makeKeyPair();
    await post(notification(await joseToken({ ok: 'squat' }, makeKeyPair())));
    await post(notification(await joseToken({ ok: 'genuine' }, other)));
    expect(await decryptDue(ctx)).toMatchObject({ failed: 1 });
    expect(await listHeldCopies(ctx.db, (await row(ctx)).id)).toHaveLength(1);
    await importCardNetworkKey(ctx, org.id, Buffer.from(other.privatePem));
    const { retryInbound } = await import('../../src/inbound/event-queue.js');
    expect(await retryInbound(ctx, { eventId: 'ev-1' })).toEqual({ requeued: 1 });
    expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
    expect((await showInbound(ctx, 'ev-1')).payload).toEqual({ ok: 'genuine' });
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { EventSignatures } from '../../src/delivery/event-signatures.js';
import { writeEvent } from '../../src/delivery/events.js';
import { ensureSigningKey, Signer } from '../../src/delivery/signing-keys.js';
import { createOrganization } from '../../src/services/organizations.js';
import { emitEvent } from '../../src/services/outbox.js';
import { createWebhook } from '../../src/services/webhooks.js';
import type { TransactionEventData } from '../../src/verify/events.js';
import { signaturesOf } from '../../src/store/event-signatures.js';
import { deleteEvents } from '../../src/store/retention.js';
import { makeContext, type TestContext } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';
import { holdWriteLock } from '../support/write-lock.js';
import { startReceiver } from './receiver.js';

afterEach(() => vi.restoreAllMocks());

const data = (i: number): TransactionEventData => ({
  id: `txn_${i}`,
  type: 'Deposit',
  status: 'Completed',
  previousStatus: 'Pending',
  amount: '5.00',
  currency: 'USDC',
  network: 'ETHEREUM',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** The stored signatures of these events, under any key, in (event, key) order. */
const stored = (ctx: TestContext, events: readonly { id: string }[]) => {
  const ids = events.map((e) => e.id);
  return signaturesOf(ctx.db, ids);
};

/** An organization with a key and `n` events no webhook was sent. */
async function setup(n: number) {
  // A busy wait on the held lock would last the whole test's timeout, not a moment.
  const ctx = await makeContext({ 'database.busyTimeoutMs': 60_000 });
  const org = await createOrganization(ctx, 'Acme');
  await ensureSigningKey(ctx, org.id);
  const rows: { id: string; body: string }[] = [];
  for (let i = 0; i < n; i++) {
    // An event is written in a transaction, under its organization's event lock.
    const e = await ctx.db.transaction((tx) => writeEvent(tx, ctx.clock.now(), org.id, 'Transaction_Updated', data(i)));
    rows.push({ id: e.event.id, body: e.body });
  }
  return { ctx, org, rows };
}

describe('EventSignatures', () => {
  it.skipIf(onPostgres)(
    'signs a batch while another process holds the write lock, keeps what it made, and stores it once the lock is free',
    async () => {
      const { ctx, org, rows } = await setup(3);
      const signatures = new EventSignatures(ctx);
      const holder = holdWriteLock(ctx.config.database.path);
      const signed = await signatures.signBatch(org.id, rows);
      expect(signed.signatures).toHaveLength(3);
      expect(signatures.unstored).toBe(3);
      holder.release();
      expect(await stored(ctx, rows)).toHaveLength(0);
      await signatures.storeNow();
      expect(signatures.unstored).toBe(0);
      expect(await stored(ctx, rows)).toEqual(
        rows.map((r, i) => ({ eventId: r.id, keyId: signed.keyId, signature: signed.signatures[i] })),
      );
    },
  );

  it.skipIf(onPostgres)(
    'keeps at most unstoredSize signatures waiting to be stored, whatever is made or given back meanwhile',
    async () => {
      const { ctx, org, rows } = await setup(5);
      const signatures = new EventSignatures(ctx, { unstoredSize: 2 });
      const holder = holdWriteLock(ctx.config.database.path);
      const signed = await signatures.signBatch(org.id, rows);
      // Every row is still signed and sent; only the storing is bounded.
      expect(signed.signatures.every((s) => s.length > 0)).toBe(true);
      expect(signatures.unstored).toBe(2);
      const taken = signatures.takeUnstored();
      await signatures.signBatch(org.id, [rows[0]!]); // in memory: nothing made
      signatures.giveBack([...taken, ...taken]);
      expect(signatures.unstored).toBe(2);
      holder.release();
      await signatures.storeNow();
      expect(await stored(ctx, rows)).toHaveLength(2);
    },
  );

  it('reads stored signatures for a batch larger than its memory, and signs none of them again', async () => {
    const { ctx, org, rows } = await setup(3);
    const first = await new EventSignatures(ctx).signBatch(org.id, rows);
    expect(await stored(ctx, rows)).toHaveLength(3);
    const small = new EventSignatures(ctx, { memorySize: 1 });
    const signAsync = vi.spyOn(Signer.prototype, 'signAsync');
    expect(await small.signBatch(org.id, rows)).toEqual(first);
    expect(signAsync).not.toHaveBeenCalled();
  });

  it('does not keep a signing that failed: the next caller signs again', async () => {
    const { ctx, org, rows } = await setup(1);
    const signatures = new EventSignatures(ctx);
    const key = await signatures.signer.currentKey(org.id);
    const original = Signer.prototype.signAsync;
    vi.spyOn(Signer.prototype, 'signAsync').mockImplementationOnce(() => Promise.reject(new Error('no thread today')));
    const failed = signatures.signatureOf(rows[0]!.id, key, rows[0]!.body);
    await expect(failed.signature).rejects.toThrow('no thread today');
    expect(await signatures.known(rows[0]!.id, key.keyId)).toBeUndefined();
    expect(signatures.unstored).toBe(0);
    const again = signatures.signatureOf(rows[0]!.id, key, rows[0]!.body);
    expect(again.made).toBe(true);
    expect(await again.signature).toBe(await original.call(signatures.signer, key, rows[0]!.body));
    expect(signatures.unstored).toBe(1);
  });

  it('skips the signature of an event deleted since it was signed, and stores the others', async () => {
    const { ctx, org, rows } = await setup(2);
    const signatures = new EventSignatures(ctx);
    const key = await signatures.signer.currentKey(org.id);
    await Promise.all(rows.map((r) => signatures.signatureOf(r.id, key, r.body).signature));
    await deleteEvents(ctx.db, [rows[0]!.id]);
    await signatures.storeNow();
    expect((await stored(ctx, rows)).map((s) => s.eventId)).toEqual([rows[1]!.id]);
    expect(ctx.logs.lines.filter((l) => l.msg === 'signatures not stored; they are made again when needed')).toEqual([]);
  });

  it.skipIf(onPostgres)(
    "has the dispatcher's next batch of results store a stream's signatures that found the write lock held",
    async () => {
      const { ctx, org, rows } = await setup(2);
      const receiver = await startReceiver();
      await createWebhook(ctx, org.id, { url: receiver.url });
      const holder = holdWriteLock(ctx.config.database.path);
      const signatures = new EventSignatures(ctx);
      await signatures.signBatch(org.id, rows);
      expect(signatures.unstored).toBe(2);
      holder.release();
      const sent = await emitEvent(ctx, org.id, 'Transaction_Updated', { status: 'Completed' });
      const dispatcher = new Dispatcher(ctx, { random: () => 0.5, signatures });
      expect(await dispatcher.runOnce()).toBe(1);
      expect(signatures.unstored).toBe(0);
      const all = [...rows.map((r) => r.id), sent.event.id].sort();
      expect((await stored(ctx, [...rows, { id: sent.event.id }])).map((s) => s.eventId)).toEqual(all);
    },
  );
});

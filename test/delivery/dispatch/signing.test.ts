/**
 * What a claimed row carries to its send: its event's body (kept between passes) and its signature.
 */
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { Signing } from '../../../src/delivery/dispatch/signing.js';
import { EventSignatures } from '../../../src/delivery/event-signatures.js';
import { rotateSigningKey } from '../../../src/delivery/signing-keys.js';
import { CLAIM_FRESH_MS, Leases, SignalledChanges } from '../../../src/delivery/dispatch/leases.js';
import { WebhookSecretKeys } from '../../../src/delivery/webhook-secrets.js';
import { enableWebhook, rotateWebhookSecretOf } from '../../../src/services/webhooks.js';
import { secretKey, standardWebhookHeaders, WEBHOOK_SIGNATURE_HEADER } from '../../../src/verify/standard-webhooks.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { storeSignatures } from '../../../src/store/event-signatures.js';
import { currentKeyRow, replaceSealedPrivateKey } from '../../../src/store/webhook-keys.js';
import { crossNodeWakeups } from '../../../src/cluster/wakeups.js';
import { makeContext, sameDatabase } from '../../support/context.js';
import { onPostgres } from '../../support/postgres.js';
import { signatureVerifies, startReceiver } from '../receiver.js';
import { checkSignaturesAfter, claimedJobs, counted, newTx, setup } from './support.js';

describe('event bodies kept between passes', () => {
  it('a pass that reads more bodies than the cache holds, or finds some cached and reads the rest, sends every row', async () => {
    const { ctx, http, org, receiver } = await setup({ 'delivery.perEndpointConcurrency': 16 });
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5, bodyCacheSize: 4 });
    const late = await startReceiver();
    checkSignaturesAfter(ctx, late);
    const b = await http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: late.url, enabled: false });
    for (let i = 0; i < 8; i++) await newTx(ctx, org.org.id);
    for (let pass = 0; pass < 3 && receiver.received.length < 8; pass++) await dispatcher.runOnce();
    expect(receiver.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(Array(8).fill('1')); // the cache now holds 4 of the bodies
    await enableWebhook(ctx, b.body.id as string, '2000-01-01T00:00:00Z'); // all 8 at once to the second webhook: 4 cached, 4 read
    expect(await dispatcher.runOnce()).toBe(8);
    expect(late.received.map((r) => r.headers['x-delivery-attempt'])).toEqual(Array(8).fill('1'));
    expect(await listDeliveries(ctx.db, { webhookId: b.body.id as string, state: 'delivered', limit: 100 })).toHaveLength(8);
  });
});

describe('signing a pass’s claimed rows', () => {
  async function claimed(n: number, bodyCacheSize?: number) {
    const s = await claimedJobs(n, 'me');
    const signing = new Signing(s.ctx.db, new EventSignatures(s.ctx), bodyCacheSize);
    return { ...s, signing, claimed: [{ webhook: s.webhook, rows: s.rows }] };
  }
  const verifies = (body: string, signature: string, pem: string) =>
    signatureVerifies({ body, headers: { 'x-signature': signature } }, pem);

  it('reads the body of every claimed row’s event, all of them even when the cache holds fewer', async () => {
    const { signing, claimed: c, rows } = await claimed(3, 1);
    const bodies = await signing.bodiesOf(c);
    expect([...bodies.keys()].sort()).toEqual(rows.map((r) => r.eventId).sort());
    for (const body of bodies.values()) {
      expect(body.type).toBe('Transaction_Created');
      expect(JSON.parse(body.body)).toMatchObject({ type: 'Transaction_Created' });
    }
  });

  it('signs each row with its organization’s current key, making each (event, key) signature once', async () => {
    const { ctx, signing, claimed: c, webhook, rows } = await claimed(2);
    const bodies = await signing.bodiesOf(c);
    const key = (await signing.keysOf(c)).get(webhook.orgId)!;
    if (key instanceof Error) throw key;
    const pem = (await currentKeyRow(ctx.db, webhook.orgId))!.public_pem;
    expect(key.keyId).toBe((await currentKeyRow(ctx.db, webhook.orgId))!.id);
    for (const row of rows) {
      const event = bodies.get(row.eventId)!;
      expect(verifies(event.body, await signing.signatureFor(row.eventId, key, event), pem)).toBe(true);
    }
    expect(signing.made).toBe(2);
    await signing.signatureFor(rows[0]!.eventId, key, bodies.get(rows[0]!.eventId));
    expect(signing.made).toBe(2);
  });

  it('reads the bodies not cached with their stored signatures in one statement, and signs none of them again', async () => {
    const { ctx, signing, claimed: c, webhook, rows } = await claimed(3);
    const key = (await signing.keysOf(c)).get(webhook.orgId)!;
    if (key instanceof Error) throw key;
    const first = await signing.bodiesOf(c, new Map([[webhook.orgId, key]]));
    const made = await Promise.all(
      rows.map(async (r) => ({
        eventId: r.eventId,
        keyId: key.keyId,
        signature: await signing.signatureFor(r.eventId, key, first.get(r.eventId)),
      })),
    );
    await storeSignatures(ctx.db, made);
    // Another process (nothing in memory) claims the same rows.
    const statements: string[] = [];
    const db = counted(ctx.db, statements);
    const other = new Signing(db, new EventSignatures({ ...ctx, db }));
    const keys = await other.keysOf(c);
    const bodies = await other.bodiesOf(c, keys);
    // Beside the key's own reads, one statement: the bodies with their signatures.
    expect(statements.filter((sql) => /event_signatures|FROM events/.test(sql))).toHaveLength(1);
    for (const r of made) expect(await other.signatureFor(r.eventId, keys.get(webhook.orgId)!, bodies.get(r.eventId))).toBe(r.signature);
    expect(other.made).toBe(0);
  });

  it('a row whose key cannot be opened, or whose event is gone, gets a rejected signature: a signing failure', async () => {
    const { ctx, signing, claimed: c, webhook, rows } = await claimed(1);
    const row = (await currentKeyRow(ctx.db, webhook.orgId))!;
    await replaceSealedPrivateKey(ctx.db, row.id, 'not-a-sealed-value');
    const key = (await signing.keysOf(c)).get(webhook.orgId)!;
    expect(key).toBeInstanceOf(Error);
    await expect(signing.signatureFor(rows[0]!.eventId, key, undefined)).rejects.toBe(key);
    await replaceSealedPrivateKey(ctx.db, row.id, row.private_enc);
    const working = (await signing.keysOf(c)).get(webhook.orgId)!;
    await expect(signing.signatureFor('evt_gone', working, undefined)).rejects.toThrow('event evt_gone not found');
    expect(signing.made).toBe(0);
  });

  it('signs a row again with the current key when its key was retired while it waited', async () => {
    const { ctx, signing, claimed: c, webhook, jobs } = await claimed(1);
    const job = jobs[0]!;
    const event = (await signing.bodiesOf(c)).get(job.eventId)!;
    job.body = event.body;
    const old = (await signing.keysOf(c)).get(webhook.orgId)!;
    if (old instanceof Error) throw old;
    job.keyId = old.keyId;
    job.signature = signing.signatureFor(job.eventId, old, event);
    const rotated = await rotateSigningKey(ctx, webhook.orgId);
    await signing.resign(job);
    expect(job.keyId).toBe(rotated.keyId);
    expect(verifies(job.body, await job.signature, rotated.publicKey)).toBe(true);
    expect(signing.made).toBe(2);
  });
});

describe('keys, secrets and v1a opt-ins kept per node', () => {
  /** Statements of a pass that read what signs a webhook's rows rather than the rows themselves. */
  const SIGNING_READS = [/FROM webhook_secrets/, /FROM webhook_v1a/, /SELECT id\s+FROM webhook_keys/];
  const signingReads = (statements: readonly string[]) => statements.filter((sql) => SIGNING_READS.some((re) => re.test(sql))).length;

  it('a pass within CLAIM_FRESH_MS of the last read reads none of them again; a change or their age makes it read', async () => {
    const { ctx, org, receiver } = await setup({ 'delivery.perEndpointConcurrency': 1, 'delivery.pollIntervalMs': 3_600_000 });
    const statements: string[] = [];
    const dispatcher = new Dispatcher({ ...ctx, db: counted(ctx.db, statements) as typeof ctx.db }, { random: () => 0.5 });
    const pass = async () => {
      await newTx(ctx, org.org.id);
      const before = signingReads(statements);
      expect(await dispatcher.runOnce()).toBe(1);
      return signingReads(statements) - before;
    };
    // The first pass reads the secrets, the v1a opt-ins and the key id; the next ones within the window none.
    expect(await pass()).toBe(3);
    expect(await pass()).toBe(0);
    ctx.clock.advance(CLAIM_FRESH_MS);
    expect(await pass()).toBe(0);
    // Older than CLAIM_FRESH_MS: read again.
    ctx.clock.advance(1);
    expect(await pass()).toBe(3);
    // A change signalled in this process (a service's commit, another node's notification): read again.
    ctx.signals.webhookChanged.emit();
    expect(await pass()).toBe(3);
    expect(await pass()).toBe(0);
    // A clock gone back: read again.
    ctx.clock.advance(-10);
    expect(await pass()).toBe(3);
    expect(receiver.received).toHaveLength(7);
    await dispatcher.stop();
  });

  it('one count of the changes signalled: a change makes the claim’s read and the kept secrets stale alike, until the count is closed', async () => {
    const { ctx, webhook, rows, jobs } = await claimedJobs(1, 'me');
    const statements: string[] = [];
    const db = counted(ctx.db, statements) as typeof ctx.db;
    const changes = new SignalledChanges(ctx.signals.webhookChanged);
    const leases = new Leases(ctx, 'me', changes);
    const now = () => ctx.clock.now();
    const signing = new Signing(db, new EventSignatures(ctx), undefined, new WebhookSecretKeys({ ...ctx, db }), undefined, {
      now,
      changes,
    });
    const claimed = [{ webhook, rows }];
    const reads = async () => {
      const before = signingReads(statements);
      await signing.secretsOf(claimed);
      return signingReads(statements) - before;
    };
    const fresh = () => leases.isFresh(jobs[0]!, now(), now());
    const claimAgain = () => (jobs[0]!.claim = leases.claimRead(now(), now() + 60_000));
    claimAgain();
    expect([await reads(), await reads(), fresh()]).toEqual([1, 0, true]);
    // A result of this dispatcher that disables a webhook: no signal, the same count.
    changes.changed();
    expect([fresh(), await reads(), await reads()]).toEqual([false, 1, 0]);
    claimAgain();
    // A service's commit or another node's notification.
    ctx.signals.webhookChanged.emit();
    expect([fresh(), await reads()]).toEqual([false, 1]);
    claimAgain();
    // Closed (a stopped dispatcher): no longer listening.
    changes.close();
    ctx.signals.webhookChanged.emit();
    expect([fresh(), await reads()]).toEqual([true, 0]);
  });

  it('a secret rotated through the service signs the next pass’s sends at once, kept reads or not', async () => {
    const { ctx, org, receiver, webhookId, dispatcher } = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
    await newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const rotated = await rotateWebhookSecretOf(ctx, org.org.id, webhookId);
    await newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const last = receiver.received.at(-1)!;
    const timestamp = Number(last.headers['webhook-timestamp']);
    const wanted = standardWebhookHeaders([secretKey(rotated.secret)], String(last.headers['webhook-id']), timestamp, last.body.toString());
    const sent = String(last.headers['webhook-signature']).split(' ');
    expect(sent).toContain(wanted[WEBHOOK_SIGNATURE_HEADER]!.split(' ')[0]);
    await dispatcher.stop();
  });

  it.runIf(onPostgres)(
    'on PostgreSQL, another node’s secret rotation reaches this node’s next pass as soon as its notification does',
    async () => {
      const { ctx, org, receiver, webhookId, dispatcher } = await setup({ 'delivery.pollIntervalMs': 3_600_000 });
      const wakeups = crossNodeWakeups(ctx);
      await wakeups.start();
      try {
        await newTx(ctx, org.org.id);
        expect(await dispatcher.runOnce()).toBe(1);
        const other = await makeContext({ ...sameDatabase(ctx), dataDir: ctx.dataDir });
        other.clock.set(ctx.clock.now());
        const heard = ctx.signals.webhookChanged.next();
        const rotated = await rotateWebhookSecretOf(other, org.org.id, webhookId);
        await heard;
        // This node's clock has not moved: the notification alone has the secrets read again.
        await newTx(ctx, org.org.id);
        expect(await dispatcher.runOnce()).toBe(1);
        const last = receiver.received.at(-1)!;
        const wanted = standardWebhookHeaders(
          [secretKey(rotated.secret)],
          String(last.headers['webhook-id']),
          Number(last.headers['webhook-timestamp']),
          last.body.toString(),
        );
        expect(String(last.headers['webhook-signature']).split(' ')).toContain(wanted[WEBHOOK_SIGNATURE_HEADER]!.split(' ')[0]);
      } finally {
        await wakeups.stop();
        await dispatcher.stop();
      }
    },
  );
});

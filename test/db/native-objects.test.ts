import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { pruneOutbox } from '../../src/jobs/retention.js';
import { createIdentity } from '../../src/services/identities.js';
import { importTransactions } from '../../src/services/transaction-import.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { startReceiver } from '../delivery/receiver.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { joseToken, makeKeyPair, notification } from '../inbound/jwe-fixtures.js';

/**
 * better-sqlite3 12's statements and iterators are native objects that, on Node 24.19 and later,
 * abort the process when the garbage collector finalizes one at the wrong moment (src/db/sqlite-connection.ts,
 * "Native objects kept"). The rule that avoids it: in normal running borderd leaves none for the
 * collector. Each SQL text is compiled once per connection and kept, pragmas are set with exec(),
 * and nothing calls iterate(). This test counts the native objects made while a daemon's context
 * opens, migrates and serves a tour of its routes, a delivery, a card-network notification and a
 * retention run, twice over.
 */
const prototype = Database.prototype as unknown as Record<'prepare' | 'pragma', (...args: unknown[]) => unknown>;
const original = { prepare: prototype.prepare, pragma: prototype.pragma };
const statementPrototype = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<
  'iterate',
  (...args: unknown[]) => unknown
>;
const originalIterate = statementPrototype.iterate;
let compiled: Map<Database.Database, Map<string, number>>;
let pragmas: string[];
let iterated: string[];

beforeEach(() => {
  compiled = new Map();
  pragmas = [];
  iterated = [];
  statementPrototype.iterate = function (this: Database.Statement, ...args: unknown[]) {
    iterated.push(this.source);
    return originalIterate.apply(this, args);
  };
  prototype.prepare = function (this: Database.Database, sql: unknown, ...rest: unknown[]) {
    const perConnection = compiled.get(this) ?? new Map<string, number>();
    compiled.set(this, perConnection);
    perConnection.set(String(sql), (perConnection.get(String(sql)) ?? 0) + 1);
    return original.prepare.call(this, sql, ...rest);
  };
  prototype.pragma = function (this: Database.Database, ...args: unknown[]) {
    pragmas.push(String(args[0]));
    return original.pragma.apply(this, args);
  };
});
afterEach(() => {
  prototype.prepare = original.prepare;
  prototype.pragma = original.pragma;
  statementPrototype.iterate = originalIterate;
});

describe('native SQLite objects', () => {
  it('are made once per SQL text and connection, and kept: no pragma(), no iterate(), none dropped', async () => {
    const ctx = await makeContext({ 'delivery.retryScheduleSeconds': [0] });
    const { http, tokens } = makeApi(ctx);
    const acme = await makeOrg(ctx, tokens);
    const receiver = await startReceiver();
    await createWebhook(ctx, acme.org.id, { url: receiver.url });
    const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
    // Enough rows for the summary to read more than one page.
    const header =
      'type,status,provider,providerTransactionId,currency,country,corridor,benchmark,reviewState,reconciliation,amountUsd,costVsMarketUsd,createdAt,updatedAt';
    const lines = Array.from(
      { length: 2345 },
      (_, i) =>
        `Deposit,Completed,PfiOne,p-${i},USDC,MX,US-MX,${['Competitive', 'InLine', 'OffMarket'][i % 3]},AllClear,Matched,100,1,2026-01-10T10:00:00Z,`,
    );
    expect((await importTransactions(ctx, acme.org.id, [header, ...lines].join('\n'), 'csv')).imported).toBe(2345);
    const cardKey = makeKeyPair();
    await importCardNetworkKey(ctx, acme.org.id, Buffer.from(cardKey.privatePem));
    ctx.config.inbound.icaOrganizations = { '123456': acme.org.id };
    for (let round = 0; round < 2; round++) {
      await createIdentity(ctx, acme.org.id, {
        type: 'Personal',
        deleted: false,
        hasComplianceChecks: false,
        data: { firstName: `Ana${round}`, lastName: 'Lopez', email: `ana${round}@example.com` },
      });
      expect((await http.get('/v1/identities?name=ana&limit=10').set('authorization', acme.auth)).body.data).toHaveLength(round + 1);
      const summary = await http.get('/v1/transactions/import-benchmark-summary').set('authorization', acme.auth);
      expect(summary.body.sampleSize).toBe(2345);
      expect(
        (await http.get('/v1/transactions/import-benchmark-summary?benchmark=InLine').set('authorization', acme.auth)).body.sampleSize,
      ).toBe(782);
      expect((await http.post('/v1/notifications/webhooks/settings/public-key').set('authorization', acme.auth)).status).toBe(201);
      expect((await http.post('/v1/refunds/config/reconfirm').set('authorization', acme.auth)).status).toBeLessThan(500);
      const event = await http
        .post('/admin/v1/events')
        .set('authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ orgId: acme.org.id, type: 'Transaction_Updated', data: {} });
      expect(event.status).toBe(201);
      const inbound = await http
        .post('/v1/webhooks/card-network')
        .send(notification(await joseToken({ round }, cardKey), { eventId: `ev-${round}` }));
      expect(inbound.status).toBe(200);
      expect(await decryptDue(ctx)).toMatchObject({ decrypted: 1 });
      ctx.clock.advance(1000);
      expect(await dispatcher.runOnce()).toBe(1);
      await pruneOutbox(ctx);
    }
    expect(receiver.received).toHaveLength(2);

    // Summary filters in every combination of four: one SQL shape per driving filter, not one per combination.
    const summarySql = () =>
      new Set(
        [...compiled.values()]
          .flatMap((perConnection) => [...perConnection.keys()])
          .filter((sql) => sql.includes('FROM transactions WHERE')),
      );
    const before = summarySql();
    const filters = ['status=Completed', 'type=Deposit', 'provider=PfiOne', 'country=MX'];
    for (let mask = 0; mask < 16; mask++) {
      const q = filters.filter((_f, i) => mask & (1 << i)).join('&');
      expect((await http.get(`/v1/transactions/import-benchmark-summary?${q}`).set('authorization', acme.auth)).status).toBe(200);
    }
    const shapes = [...summarySql()].filter((sql) => !before.has(sql));
    expect(shapes.length).toBeLessThanOrEqual(4); // driven by each of the four; no filter was compiled before

    expect(pragmas).toEqual([]);
    expect(iterated).toEqual([]);
    const repeated = [...compiled.values()].flatMap((perConnection) => [...perConnection].filter(([, n]) => n > 1).map(([sql]) => sql));
    expect(repeated).toEqual([]);
    receiver.server.close();
  });
});

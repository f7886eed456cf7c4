/**
 * What a write costs in round trips to PostgreSQL (src/db/postgres.ts), counted as the queries
 * node-postgres sends: a bookkeeping transaction opens with its setting in one round trip, a
 * transaction's notifications go in its COMMIT's round trip, and an event written the way the API
 * writes it (the outbox transaction inside the write's own) is one statement with its deliveries
 * and opens no savepoint. A listener on its own connection checks what the notifications still do:
 * sent once the transaction commits, never for one that rolls back or for a savepoint that rolls
 * back inside one that commits.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { notifyOnCommit, type Database } from '../../src/db/database.js';
import { commitAlone } from '../../src/db/group-commit.js';
import { createOrganization } from '../../src/services/organizations.js';
import { emitEvent } from '../../src/services/outbox.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { makeContext, type TestContext } from '../support/context.js';

let ctx: TestContext;
let sent: string[];

/**
 * Every query a node-postgres client sends (a pooled connection is one), by its text: one round
 * trip each, a statement sent behind its transaction's openers (BEGIN) as they and it.
 */
const query = pg.Client.prototype.query;
function recording(this: pg.Client, ...args: unknown[]): unknown {
  const q = args[0] as string | { text: string; openers?: readonly string[] };
  sent.push(typeof q === 'string' ? q : [...(q.openers ?? []), q.text].join('; '));
  return (query as (...a: unknown[]) => unknown).apply(this, args);
}

beforeEach(async () => {
  ctx = await makeContext();
  sent = [];
  pg.Client.prototype.query = recording as typeof query;
});

afterEach(() => {
  pg.Client.prototype.query = query;
});

/** The queries `fn` sends, in order. */
async function queriesOf(fn: () => Promise<unknown>): Promise<string[]> {
  sent = [];
  await fn();
  return sent.map((text) => text.replace(/\s+/g, ' ').trim());
}

describe('round trips of a write on PostgreSQL', () => {
  it('a transaction opens with its first statement, in its round trip, its setting included', async () => {
    const queries = await queriesOf(() => ctx.db.transaction((tx) => tx.value('SELECT 1'), { durability: 'bookkeeping' }));
    expect(queries).toEqual(['BEGIN; SET LOCAL synchronous_commit TO off; SELECT 1', 'COMMIT']);
    expect(await queriesOf(() => ctx.db.transaction((tx) => tx.savepoint((sp) => sp.value('SELECT ?', [2]))))).toEqual([
      'BEGIN; SAVEPOINT sp1',
      'SELECT $1',
      'RELEASE SAVEPOINT sp1',
      'COMMIT',
    ]);
    // One that sends nothing sends nothing but its notifications.
    expect(await queriesOf(() => ctx.db.transaction(async () => undefined))).toEqual([]);
    expect(await queriesOf(() => ctx.db.transaction((tx) => notifyOnCommit(tx, 'borderd_outbox')))).toEqual([
      'BEGIN; NOTIFY borderd_outbox; COMMIT',
    ]);
  });

  it('the statements of a transaction opened with its first one run in it: its snapshot, its rollback, a failing first statement', async () => {
    const db = ctx.db as Database;
    // Both reads see the snapshot the first took, though another transaction committed between them.
    const seen = await db.snapshot(async (tx) => {
      const before = Number(await tx.value('SELECT COUNT(*) FROM organizations'));
      await createOrganization(ctx, 'Between');
      return [before, Number(await tx.value('SELECT COUNT(*) FROM organizations'))];
    });
    expect(seen[1]).toBe(seen[0]);
    await expect(
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO organizations (id, name, created_at) VALUES ('org_rolled_back', 'x', '2026-01-01T00:00:00.000Z')");
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await db.value("SELECT id FROM organizations WHERE id = 'org_rolled_back'")).toBeUndefined();
    // Twice: a statement that failed to parse is parsed again, not taken for one its connection holds.
    for (let i = 0; i < 2; i++)
      await expect(db.transaction((tx) => tx.value('SELECT no_such_column FROM organizations'))).rejects.toThrow(/no_such_column/);
    // The connection went back to the pool out of any transaction: the next one commits.
    await db.transaction((tx) =>
      tx.run("INSERT INTO organizations (id, name, created_at) VALUES ('org_kept', 'x', '2026-01-01T00:00:00.000Z')"),
    );
    expect(await db.value("SELECT id FROM organizations WHERE id = 'org_kept'")).toBe('org_kept');
  });

  it("a transaction's notifications go with its COMMIT, once per channel", async () => {
    const queries = await queriesOf(() =>
      ctx.db.transaction(async (tx) => {
        await notifyOnCommit(tx, 'borderd_outbox');
        await tx.value('SELECT 1');
        await notifyOnCommit(tx, 'borderd_outbox');
      }),
    );
    expect(queries).toEqual(['BEGIN; SELECT 1', 'NOTIFY borderd_outbox; COMMIT']);
  });

  it('an event written as the API writes it is one statement, its deliveries included, with no savepoint', async () => {
    const org = await createOrganization(ctx, 'Acme');
    const hooks = [
      await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/a' }),
      await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/b', eventTypes: ['Transaction_*'] }),
      await createWebhook(ctx, org.id, { url: 'http://127.0.0.1:9/c', eventTypes: ['VirtualAccount_Created'] }),
    ];
    const write = () => commitAlone(ctx.db)((tx) => emitEvent({ ...ctx, db: tx }, org.id, 'Transaction_Updated'));
    // The first write of the organization learns how many webhooks take its events; the next ones offer that many ids.
    await write();
    let event: { id: string } | undefined;
    const queries = await queriesOf(async () => (event = (await write()).event));
    expect(queries.filter((q) => /SAVEPOINT|pg_notify/i.test(q))).toEqual([]);
    expect(queries[0]).toMatch(/^BEGIN; WITH event AS \(INSERT INTO events .* INSERT INTO deliveries /);
    expect(queries.at(-1)).toBe('NOTIFY borderd_outbox; COMMIT');
    // BEGIN with the organization's check, the event, its webhooks and their deliveries in one statement; COMMIT.
    expect(queries).toHaveLength(2);
    const rows = await ctx.db.column<string>('SELECT webhook_id FROM deliveries WHERE event_id = ? ORDER BY webhook_id', [event!.id]);
    expect(rows).toEqual([hooks[0]!.id, hooks[1]!.id]);
  });

  it('notifies listeners once a transaction commits, and never for what rolled back', async () => {
    const db = ctx.db as Database;
    const heard: string[] = [];
    let hear: (() => void) | undefined;
    const stop = await db.listen(['borderd_outbox', 'borderd_inbound'], (channel) => {
      heard.push(channel);
      hear?.();
    });
    try {
      // Each channel is called once as the listener connects (what may have been missed).
      expect(heard.sort()).toEqual(['borderd_inbound', 'borderd_outbox']);
      heard.length = 0;
      const next = (n: number) =>
        new Promise<void>((resolve) => {
          hear = () => heard.length >= n && resolve();
          hear();
        });

      await expect(
        db.transaction(async (tx) => {
          await notifyOnCommit(tx, 'borderd_outbox');
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await db.transaction(async (tx) => {
        const inner = await tx.savepoint(async (sp) => {
          await notifyOnCommit(sp, 'borderd_outbox');
          throw new Error('savepoint rolled back');
        });
        expect(inner.ok).toBe(false);
        await tx.value('SELECT 1');
      });
      // Notifications arrive in commit order: once this one is heard, any of the two above would have been.
      await notifyOnCommit(db, 'borderd_inbound');
      await next(1);
      expect(heard).toEqual(['borderd_inbound']);

      await db.transaction(async (tx) => {
        await tx.savepoint(async (sp) => notifyOnCommit(sp, 'borderd_outbox'));
        await tx.value('SELECT 1');
      });
      await next(2);
      expect(heard).toEqual(['borderd_inbound', 'borderd_outbox']);
    } finally {
      await stop();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { getRefundConfig } from '../../src/store/refund-configs.js';
import { listRefundPlans } from '../../src/store/refund-plans.js';
import { databaseBefore } from '../support/context.js';
import { onPostgres } from '../support/postgres.js';

const EVM = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
const OLD = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';

// Migration 007 is SQLite's: PostgreSQL databases start at the baseline that includes it.
describe.skipIf(onPostgres)('migration 007', () => {
  it('attributes existing plans to the current default only when their destination is one it gives', async () => {
    const db = await databaseBefore(7);
    const at = '2026-01-01T00:00:00.000Z';
    await db.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', ['org_1', 'Acme', at]);
    await db.run('INSERT INTO refund_configs (org_id, destination, verified_at, updated_at) VALUES (?, ?, ?, ?)', [
      'org_1',
      JSON.stringify({ type: 'Address', addresses: [{ network: 'POLYGON', address: EVM }], autoRefund: true, autoFiatReturn: false }),
      at,
      at,
    ]);
    const plan = async (id: string, from: string, destination: unknown) => {
      await db.run(
        `INSERT INTO transactions (id, org_id, origin, type, status, created_at, updated_at) VALUES (?, 'org_1', 'orchestrated', 'Deposit', 'Failed', ?, ?)`,
        [`txn_${id}`, at, at],
      );
      await db.run(
        `INSERT INTO refund_plans (id, org_id, transaction_id, state, kind, destination_from, destination, auto_refund, reason, created_at, updated_at) VALUES (?, 'org_1', ?, 'Paused', 'CryptoRefund', ?, ?, 1, 'r', ?, ?)`,
        [`rfp_${id}`, `txn_${id}`, from, destination ? JSON.stringify(destination) : null, at, at],
      );
    };
    await plan('current', 'default', { type: 'Address', network: 'POLYGON', address: EVM });
    await plan('replaced', 'default', { type: 'Address', network: 'POLYGON', address: OLD });
    await plan('othertype', 'default', { type: 'Source' });
    await plan('own', 'transaction', { type: 'Address', network: 'POLYGON', address: EVM });
    await migrate(db);
    // Migrated: read as this release reads them.
    expect((await listRefundPlans(db, {})).map((p) => ({ id: p.id, v: p.defaultVersion }))).toEqual([
      { id: 'rfp_current', v: 1 },
      { id: 'rfp_othertype', v: null },
      { id: 'rfp_own', v: null },
      { id: 'rfp_replaced', v: null },
    ]);
    expect((await getRefundConfig(db, 'org_1'))?.version).toBe(1);
    await db.close();
  });
});

/**
 * The `virtual_accounts` table, whose changes produce the virtual account events.
 *
 * @module store/virtual-accounts
 */
import type { Db } from '../db/database.js';
import type { VirtualAccountStatus } from '../verify/events.js';

export interface VirtualAccount {
  id: string;
  orgId: string;
  identityId: string | null;
  accountId: string | null;
  currency: string | null;
  status: VirtualAccountStatus;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export async function insertVirtualAccount(db: Db, v: VirtualAccount): Promise<void> {
  await db.run(
    `INSERT INTO virtual_accounts (id, org_id, identity_id, account_id, currency, status, failure_reason, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [v.id, v.orgId, v.identityId, v.accountId, v.currency, v.status, v.failureReason, v.createdAt, v.updatedAt],
  );
}

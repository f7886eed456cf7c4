/**
 * The `virtual_accounts` table, whose changes produce the virtual account events.
 *
 * @module store/virtual-accounts
 */
import type { Db } from '../db/database.js';
import type { VirtualAccountEventData } from '../verify/events.js';

/** A virtual account: what its events carry, and the organization it belongs to. */
export interface VirtualAccount extends VirtualAccountEventData {
  orgId: string;
}

export async function insertVirtualAccount(db: Db, v: VirtualAccount): Promise<void> {
  await db.run(
    `INSERT INTO virtual_accounts (id, org_id, identity_id, account_id, currency, status, failure_reason, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [v.id, v.orgId, v.identityId, v.accountId, v.currency, v.status, v.failureReason, v.createdAt, v.updatedAt],
  );
}

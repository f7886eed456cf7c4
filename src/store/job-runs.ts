/**
 * The `job_runs` table: which node runs a periodic job now, so one node at a time does.
 *
 * @module store/job-runs
 */
import type { Db } from '../db/database.js';

/**
 * Takes the job's run for `owner` until `leaseUntil` when no other owner holds an unexpired one;
 * true when taken. One statement, so two nodes racing for it cannot both win.
 */
export async function claimJobRun(db: Db, name: string, owner: string, now: number, leaseUntil: number): Promise<boolean> {
  const row = await db.get(
    `INSERT INTO job_runs (name, owner, lease_until) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
       WHERE job_runs.lease_until <= ? OR job_runs.owner = excluded.owner
     RETURNING owner`,
    [name, owner, leaseUntil, now],
  );
  return row !== undefined;
}

/** Ends the owner's run; the lease stays until `leaseUntil`, so the other nodes' timers of the same slot pass. */
export async function endJobRun(db: Db, name: string, owner: string, leaseUntil: number): Promise<void> {
  await db.run('UPDATE job_runs SET lease_until = ? WHERE name = ? AND owner = ?', [leaseUntil, name, owner]);
}

/**
 * The API's reads that `borderd serve` runs on its read workers (database.readWorkers) instead of
 * the main thread: the ones whose SQLite work is most of a request, or that can take long (a
 * summary reads every imported transaction of the organization). Each is a pure function of a
 * connection and plain arguments, so it runs the same inline (tests, :memory:, readWorkers 0).
 * Imported by every read worker, so it stays free of what the main thread alone holds.
 *
 * @module services/offloaded-reads
 */
import type { Db } from '../db/database.js';
import type { ReadTable } from '../db/read-pool.js';
import type { PiiAccess } from '../store/api-clients.js';
import type { IdentityFilter } from '../store/identities.js';
import { benchmarkSummary, type SummaryQuery } from './benchmark-summary.js';
import { identitiesPageJson } from './identities.js';

export const readQueries = {
  identitiesPage: (db: Db, a: { orgId: string; filter: IdentityFilter; piiAccess: PiiAccess }) =>
    identitiesPageJson(db, a.orgId, a.filter, a.piiAccess),
  benchmarkSummary: (db: Db, a: { orgId: string; query: SummaryQuery }) => benchmarkSummary(db, a.orgId, a.query),
} satisfies ReadTable;

export type OffloadedReads = typeof readQueries;

/** Where the workers import the table from: this module, compiled. */
export const readQueriesModule = new URL(import.meta.url);

/**
 * What every use case receives: the configuration, the database, the clock, the logger, the sealed
 * secrets, the in-process signals and the reactions wired to a transaction's status change. Built
 * once per process by `createContext` (src/create-context.ts) and passed down; this file holds only
 * its shape, so every layer can name it without importing what builds it.
 *
 * @module context
 */
import type { Config } from './config/schema.js';
import type { Database, Db } from './db/database.js';
import type { Clock } from './domain/clock.js';
import type { Logger } from './logging/logger.js';
import type { SecretBox } from './security/secret-box.js';
import type { Signals } from './signals.js';
import type { WebhookRecord } from './store/webhooks.js';
import type { TransactionStatus } from './verify/events.js';

export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  secrets: SecretBox;
  /** The folder of the database file: the master key and admin token files live beside it. */
  dataDir: string;
  signals: Signals;
  /** Run inside the transaction of every status change, in order (src/create-context.ts lists them). */
  transactionHooks: readonly TransactionHook[];
  /** Run inside the transaction that disables a webhook, in order (src/create-context.ts lists them). */
  webhookDisabledHooks: readonly WebhookDisabledHook[];
}

/** The context a process opened (src/create-context.ts): its `db` is the database itself, which the process closes. */
export interface OpenContext extends AppContext {
  db: Database;
}

/** A transaction's status change, seen from inside the database transaction that makes it. */
export interface TransactionStatusChange {
  ctx: AppContext;
  orgId: string;
  transactionId: string;
  from: TransactionStatus | null;
  to: TransactionStatus;
  nowMs: number;
}

/**
 * A reaction that commits or rolls back with the status change (a refund plan recorded when a
 * transaction fails): throwing aborts the change and its events.
 */
export type TransactionHook = (change: TransactionStatusChange) => Promise<void>;

/** A webhook going from enabled to disabled, seen from inside the transaction that disables it. */
export interface WebhookDisabled {
  ctx: AppContext;
  /** The webhook as it was before (enabled). */
  webhook: WebhookRecord;
  /** Why: the dispatcher's reason, or who disabled it. */
  reason: string;
  at: string;
}

/** A reaction that commits or rolls back with the disabling (an operator alert written to the outbox). */
export type WebhookDisabledHook = (change: WebhookDisabled) => Promise<void>;

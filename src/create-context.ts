/**
 * Builds the AppContext of a process (the daemon, or one CLI command): opens and migrates the
 * database, resolves the master key, and wires the reactions every transaction status change runs.
 *
 * @module create-context
 */
import { dirname, join } from 'node:path';
import type { Config } from './config/schema.js';
import type { OpenContext, TransactionHook, WebhookDisabledHook } from './context.js';
import { alertOnWebhookDisabled } from './alerts/alerts.js';
import { migrate } from './db/migrate.js';
import { openDatabase } from './db/open.js';
import { connectFailure } from './db/postgres.js';
import { systemClock, type Clock } from './domain/clock.js';
import { createLogger, type Logger } from './logging/logger.js';
import { checkMasterKey, mayCreateMasterKey, resolveMasterKey } from './security/master-key.js';
import { SecretBox } from './security/secret-box.js';
import { recordRefundPlanOnFailure } from './services/refunds.js';
import { createSignals } from './signals.js';

/** Every feature's reactions to a transaction status change, in the order they run. */
const TRANSACTION_HOOKS: readonly TransactionHook[] = [recordRefundPlanOnFailure];

/** Every feature's reactions to a webhook being disabled, in the order they run. */
const WEBHOOK_DISABLED_HOOKS: readonly WebhookDisabledHook[] = [alertOnWebhookDisabled];

export interface ContextOptions {
  clock?: Clock;
  log?: Logger;
  /** Apply pending migrations while opening (serve and most CLI commands do). */
  migrate?: boolean;
}

export function dataDirOf(config: Config): string {
  if (config.dataDir !== undefined) return config.dataDir;
  if (config.database.url !== undefined) return './data';
  return config.database.path === ':memory:' ? process.cwd() : dirname(config.database.path);
}

/**
 * Opens the database (PostgreSQL when database.url is set, else the SQLite file), applies pending
 * migrations, and proves the master key opens its secrets. A database or key that cannot be used
 * closes what was opened and throws the one-line error the CLI prints.
 */
export async function createContext(config: Config, opts: ContextOptions = {}): Promise<OpenContext> {
  const log = opts.log ?? createLogger(config.log);
  const dataDir = dataDirOf(config);
  const db = openDatabase(config.database, {
    onIdleError: (err) =>
      // Only the message and code: the pool hangs the connection (with its settings) on the error.
      log.warn(
        { err: { message: err.message, code: (err as { code?: string }).code }, database: db.location },
        'an idle database connection failed; the next statement opens a new one',
      ),
  });
  let secrets: SecretBox;
  try {
    if (opts.migrate !== false) {
      // One line for the lot: a first start applies every migration, and each is detail (debug).
      const applied = await migrate(db);
      for (const m of applied) log.debug({ version: m.version, name: m.name }, 'migration applied');
      if (applied.length > 0)
        log.info(
          { applied: applied.length, version: applied.at(-1)!.version },
          `${applied.length} migrations applied (schema version ${applied.at(-1)!.version})`,
        );
    }
    const keyFile = config.security.masterKeyFile ?? join(dataDir, 'master.key');
    const { key, created } = resolveMasterKey({
      configured: config.security.masterKey,
      file: keyFile,
      mayCreate: await mayCreateMasterKey(db),
    });
    if (created) log.warn({ dataDir }, 'generated a new master key file (master.key, mode 0600); back it up with the database');
    secrets = new SecretBox(key);
    await checkMasterKey(db, secrets, config.security.masterKey ? 'security.masterKey (BORDERD_MASTER_KEY)' : keyFile);
  } catch (err) {
    await db.close();
    throw (db.dialect === 'postgres' && connectFailure(err, db.location)) || err;
  }
  return {
    config,
    db,
    clock: opts.clock ?? systemClock,
    log,
    secrets,
    dataDir,
    signals: createSignals(),
    transactionHooks: TRANSACTION_HOOKS,
    webhookDisabledHooks: WEBHOOK_DISABLED_HOOKS,
  };
}

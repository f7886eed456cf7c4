import { EventEmitter } from 'node:events';
import { dirname, join } from 'node:path';
import type { Config } from './config/schema.js';
import type { Db } from './db/open.js';
import { openDatabase } from './db/open.js';
import { migrate } from './db/migrate.js';
import { EventSignatures } from './delivery/event-signatures.js';
import { systemClock, type Clock } from './domain/clock.js';
import { createLogger, type Logger } from './logging/logger.js';
import { checkMasterKey, mayCreateMasterKey, resolveMasterKey } from './security/master-key.js';
import { SecretBox } from './security/secret-box.js';

/**
 * What every use case needs, built once per process (daemon or CLI command) and passed down.
 * `signals` carries in-process wake-ups (e.g. 'outbox' after a commit that wrote deliveries) so
 * workers react at once instead of waiting for their next poll.
 */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  secrets: SecretBox;
  dataDir: string;
  signals: EventEmitter;
  /**
   * The signatures of events, shared by the dispatcher and the event stream: one Signer (each
   * private key unsealed once) and one cache (an event signed for one is not signed again for the
   * other). One per context, so one per daemon process.
   */
  eventSignatures: EventSignatures;
}

export interface ContextOptions {
  clock?: Clock;
  log?: Logger;
  /** Apply pending migrations while opening (serve and most CLI commands do). */
  migrate?: boolean;
}

export function dataDirOf(config: Config): string {
  return config.database.path === ':memory:' ? process.cwd() : dirname(config.database.path);
}

export function createContext(config: Config, opts: ContextOptions = {}): AppContext {
  const log = opts.log ?? createLogger(config.log);
  const dataDir = dataDirOf(config);
  const db = openDatabase(config.database.path, { busyTimeoutMs: config.database.busyTimeoutMs, synchronous: config.database.synchronous });
  if (opts.migrate !== false) {
    for (const m of migrate(db)) log.info({ version: m.version, name: m.name }, 'migration applied');
  }
  const keyFile = config.security.masterKeyFile ?? join(dataDir, 'master.key');
  let secrets: SecretBox;
  try {
    const { key, created } = resolveMasterKey({ configured: config.security.masterKey, file: keyFile, mayCreate: mayCreateMasterKey(db) });
    if (created) log.warn({ dataDir }, 'generated a new master key file (master.key, mode 0600); back it up with the database');
    secrets = new SecretBox(key);
    checkMasterKey(db, secrets, config.security.masterKey ? 'security.masterKey (BORDERD_MASTER_KEY)' : keyFile);
  } catch (err) {
    db.close();
    throw err;
  }
  const signals = new EventEmitter();
  signals.setMaxListeners(100);
  const ctx = { config, db, clock: opts.clock ?? systemClock, log, secrets, dataDir, signals } as AppContext;
  // Made from the context it belongs to: its Signer reads keys through ctx.db and opens them with ctx.secrets.
  ctx.eventSignatures = new EventSignatures(ctx);
  return ctx;
}

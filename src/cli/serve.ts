/**
 * `borderd serve` and `borderd migrate`: the daemon's start, its first-start credentials and
 * listening line, and its signal handling; and migrations on their own, or a SQLite database's
 * copy into PostgreSQL (src/db/copy.ts).
 *
 * @module cli/serve
 */
import { exposureNotice, inboundExposure } from '../inbound/sender-check.js';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import type { Config } from '../config/schema.js';
import type { OpenContext } from '../context.js';
import { createContext, dataDirOf } from '../create-context.js';
import { copySqliteToPostgres, CopyRefusedError, SqliteSource, type CopyReport } from '../db/copy.js';
import type { Database } from '../db/database.js';
import { openDatabase } from '../db/open.js';
import { redactedUrl } from '../domain/url-redaction.js';
import { checkMasterKey, mayCreateMasterKey, resolveMasterKey } from '../security/master-key.js';
import { SecretBox } from '../security/secret-box.js';
import { startDaemon } from '../daemon.js';
import { bootstrapDevelopment } from '../services/organizations.js';
import { countOrganizations } from '../store/organizations.js';
import { migrate, schemaVersion } from '../db/migrate.js';
import { stdoutLogIsPretty } from '../logging/logger.js';
import {
  CliExit,
  listenFailure,
  loadCliConfig,
  reportError,
  runWithContext,
  output,
  table,
  withCommonOptions,
  type CommonArgs,
} from './context.js';
import { borderdCommand } from './command-name.js';

interface ServeArgs extends CommonArgs {
  host?: string;
  port?: number;
  logLevel?: string;
}

/** Written to stdout once, never to the log: it holds a secret. */
function firstStartBanner(baseUrl: string, orgId: string, clientId: string, clientSecret: string): string {
  const body = JSON.stringify({ clientId, clientSecret });
  return [
    '',
    `borderd: first start on an empty database; created organization ${orgId} ("Development") and one API client.`,
    `  clientId:     ${clientId}`,
    `  clientSecret: ${clientSecret}`,
    'The secret is shown only now. Fetch a token with:',
    `  curl -s -X POST ${baseUrl}/v1/auth/m2m/token -H 'content-type: application/json' -d '${body}'`,
    `  or, in the shell you work in: export BORDERD_CLIENT_ID=${clientId} BORDERD_CLIENT_SECRET=${clientSecret}`,
    `  then: ${borderdCommand()} token --url ${baseUrl}`,
    '',
  ].join('\n');
}

export const serveCommand: CommandModule<object, ServeArgs> = {
  builder: (y) =>
    withCommonOptions(y)
      .option('host', { type: 'string', describe: 'listen address (server.host)' })
      .option('port', { type: 'number', describe: 'listen port, 0 for any free port (server.port)' })
      .option('log-level', { type: 'string', describe: 'fatal, error, warn, info, debug, trace or silent (log.level)' }) as never,
  handler: async (args) => {
    let ctx: OpenContext | undefined;
    let config: ReturnType<typeof loadCliConfig> | undefined;
    let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
    let startFiles: string[] = [];
    try {
      // --json: stdout is JSON lines only (the log and the one {listening} line), on a terminal too.
      config = loadCliConfig(args, {
        'server.host': args.host,
        'server.port': args.port,
        'log.level': args.logLevel,
        'log.pretty': args.json ? 'never' : undefined,
      });
      // The banner and the listening line are for a person: on stdout beside a readable log, on
      // stderr when stdout carries JSON lines for a log pipeline, which a plain line would break.
      const human = stdoutLogIsPretty(config.log.pretty) ? process.stdout : process.stderr;
      startFiles = filesAStartMayCreate(config);
      ctx = await createContext(config);
      daemon = await startDaemon(ctx);
      const running = daemon;
      // After the port is bound: a start that fails to listen must not create (and so never show) credentials.
      const dev = config.admin.bootstrapOrganization ? await bootstrapDevelopment(ctx) : undefined;
      const log = ctx.log;
      const noOrganization = !config.admin.bootstrapOrganization && (await countOrganizations(ctx.db)) === 0;
      if (noOrganization) {
        log.info(
          'no organization yet (admin.bootstrapOrganization is off): create one with `borderd orgs create --name NAME`, then `borderd clients create --org ORG`',
        );
      }
      const exposure = inboundExposure(config);
      const notice = exposureNotice(exposure);
      if (notice) log.warn({ inboundExposure: exposure }, notice);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, 'shutting down: draining requests and deliveries');
        running.close().then(
          () => {
            log.info('stopped');
            log.flush?.();
            process.exit(0);
          },
          (err: unknown) => {
            log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      // Handlers first: a supervisor may signal the moment it reads the listening line below.
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      // Bound to every interface (a container), the printed curl line still needs an address to call.
      const baseUrl = config.server.publicBaseUrl ?? daemon.url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
      ctx.log.info({ url: daemon.url, db: ctx.db.location, adminTokenFile: daemon.adminTokenFile }, 'borderd listening');
      if (args.json) {
        // One line for a supervisor or script: where it listens and, on a first start, the client made.
        const firstStart = dev ? { organizationId: dev.org.id, clientId: dev.client.id, clientSecret: dev.client.clientSecret } : undefined;
        process.stdout.write(
          JSON.stringify({ listening: daemon.url, adminTokenFile: daemon.adminTokenFile ?? null, ...(firstStart ? { firstStart } : {}) }) +
            '\n',
        );
        return;
      }
      if (dev) human.write(firstStartBanner(baseUrl, dev.org.id, dev.client.id, dev.client.clientSecret) + '\n');
      const cmd = borderdCommand();
      if (noOrganization)
        human.write(
          `borderd: no organization yet: ORG=$(${cmd} orgs create --name NAME --print id), then eval "$(${cmd} clients create --org $ORG --export)" and TOKEN=$(${cmd} token)\n`,
        );
      // Last, so a script that waits for this line (borderd on port 0) has the banner too.
      human.write(`borderd listening on ${daemon.url}\n`);
    } catch (err) {
      if (daemon) await daemon.close().catch(() => undefined);
      else if (ctx?.db.open) await ctx.db.close();
      // A start that failed (a port in use, say) leaves nothing it created: no empty database, no
      // master key that a later start would have to match.
      // A path that could not be made (a file where a folder should be) is not there to remove.
      for (const file of startFiles) {
        try {
          rmSync(file, { force: true });
        } catch {
          // nothing was created there
        }
      }
      process.exitCode = reportError(
        config ? listenFailure(err, config.server.host, config.server.port, 'server.host, server.port') : err,
        args.json,
      );
    }
  },
};

interface MigrateArgs extends CommonArgs {
  fromSqlite?: string | undefined;
  masterKeyFile?: string | undefined;
}

export const migrateCommand: CommandModule<object, MigrateArgs> = {
  builder: (y) =>
    withCommonOptions(y)
      .option('from-sqlite', {
        type: 'string',
        describe: 'copy this SQLite file (read-only) into the empty PostgreSQL database of --database-url',
      })
      .option('master-key-file', {
        type: 'string',
        describe: "with --from-sqlite: the master key the file's secrets are sealed with (default: master.key beside it)",
      }) as never,
  handler: async (args) => {
    if (args.fromSqlite !== undefined) return copyFromSqlite(args, args.fromSqlite);
    if (args.masterKeyFile !== undefined) {
      process.exitCode = reportError(new CliExit(2, '--master-key-file goes with --from-sqlite'), args.json);
      return;
    }
    await runWithContext(
      args,
      async (ctx) => {
        const applied = await migrate(ctx.db);
        const version = await schemaVersion(ctx.db);
        output(
          args,
          { version, applied: applied.map((m) => ({ version: m.version, name: m.name })) },
          () =>
            `database ${ctx.config.database.url !== undefined ? redactedUrl(ctx.config.database.url) : ctx.config.database.path} is at schema version ${version} (${applied.length} migration(s) applied now)`,
        );
      },
      { migrate: false, mayCreateDatabase: true },
    );
  },
};

/** The master key the source's secrets are sealed with, and where it came from (for messages: never the key). */
interface SourceKey {
  key: Buffer | undefined;
  from: string;
}

/**
 * The key named by --master-key-file, else security.masterKey (BORDERD_MASTER_KEY), else the
 * master.key file beside the source, as the daemon on that file found it. A source that holds
 * nothing sealed needs none.
 */
async function sourceMasterKey(args: MigrateArgs, config: Config, source: SqliteSource): Promise<SourceKey> {
  if (args.masterKeyFile !== undefined) {
    const file = resolve(args.masterKeyFile);
    if (!existsSync(file)) throw new CliExit(2, `cannot read --master-key-file ${file}: no such file`);
    return { key: resolveMasterKey({ file, mayCreate: false }).key, from: file };
  }
  if (config.security.masterKey !== undefined) {
    return {
      key: resolveMasterKey({ configured: config.security.masterKey, file: '' }).key,
      from: 'security.masterKey (BORDERD_MASTER_KEY)',
    };
  }
  const file = join(dirname(source.path), 'master.key');
  if (existsSync(file)) return { key: resolveMasterKey({ file, mayCreate: false }).key, from: file };
  if (await mayCreateMasterKey(source.db)) return { key: undefined, from: 'none (the source holds nothing sealed)' };
  throw new CliExit(
    2,
    `no master key beside ${source.path} (${file}): name the key its secrets are sealed with by --master-key-file, or set BORDERD_MASTER_KEY`,
  );
}

/**
 * Proves the key opens the source's canary before anything is copied, as the daemon does at start.
 * On a source from before the canary, checkMasterKey proves the key on a token key and then records
 * the canary: the read-only connection refuses that write, and the proof is what counts.
 */
async function checkSourceKey(source: SqliteSource, key: SourceKey): Promise<void> {
  if (key.key === undefined) return;
  try {
    await checkMasterKey(source.db, new SecretBox(key.key), key.from);
  } catch (err) {
    if (!String((err as { code?: unknown }).code).startsWith('SQLITE_READONLY')) throw err;
  }
}

/** Where the daemon on PostgreSQL will look for its master key, and whether the source's key is already there. */
function daemonMasterKey(config: Config, key: SourceKey): { readsFrom: string; inPlace: boolean } {
  if (config.security.masterKey !== undefined) {
    const configured = Buffer.from(config.security.masterKey, 'base64');
    return { readsFrom: 'security.masterKey (BORDERD_MASTER_KEY)', inPlace: key.key === undefined || configured.equals(key.key) };
  }
  const file = resolve(config.security.masterKeyFile ?? join(dataDirOf(config), 'master.key'));
  if (key.key === undefined) return { readsFrom: file, inPlace: true };
  let inPlace = false;
  try {
    inPlace = existsSync(file) && resolveMasterKey({ file, mayCreate: false }).key.equals(key.key);
  } catch {
    // A file that is no key is not the key either: the advice below says to replace it.
  }
  return { readsFrom: file, inPlace };
}

/** `borderd migrate --from-sqlite FILE --database-url URL`: the copy (src/db/copy.ts) and its report. */
async function copyFromSqlite(args: MigrateArgs, file: string): Promise<void> {
  let source: SqliteSource | undefined;
  let target: Database | undefined;
  // The import command's module (its progress bar, the CSV parser) is loaded only for this copy, never by serve.
  const { progressReporter } = await import('./import.js');
  const progress = progressReporter('copying rows');
  try {
    if (args.db !== undefined) {
      throw new CliExit(
        2,
        '--db and --from-sqlite both name a SQLite file: the source is --from-sqlite, the target --database-url; leave --db out',
      );
    }
    const config = loadCliConfig(args);
    if (config.database.url === undefined) {
      throw new CliExit(2, '--from-sqlite copies into PostgreSQL: name the target with --database-url postgres://… (database.url)');
    }
    source = await SqliteSource.open(file);
    const key = await sourceMasterKey(args, config, source);
    await checkSourceKey(source, key);
    const daemonKey = daemonMasterKey(config, key);
    target = openDatabase(config.database);
    const started = performance.now();
    let report: CopyReport;
    try {
      report = await copySqliteToPostgres(source, target, { onProgress: progress.update });
    } finally {
      progress.stop();
    }
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const masterKey = { from: key.from, daemonReadsFrom: daemonKey.readsFrom, inPlace: daemonKey.inPlace };
    output(args, { source: source.path, target: target.location, schemaVersion: source.schemaVersion, ...report, seconds, masterKey }, () =>
      copyText(source!, target!, report, seconds, masterKey),
    );
  } catch (err) {
    process.exitCode = reportError(err instanceof CopyRefusedError ? new CliExit(1, err.message) : err, args.json);
  } finally {
    await source?.close();
    await target?.close();
  }
}

function copyText(
  source: SqliteSource,
  target: Database,
  report: CopyReport,
  seconds: number,
  key: { from: string; daemonReadsFrom: string; inPlace: boolean },
): string {
  const lines = [
    `copied ${source.path} (schema version ${source.schemaVersion}) into ${target.location}: ${report.rows} rows in ${seconds} s, every table's count the same`,
    table(report.tables, ['table', 'source', 'target']),
  ];
  if (!report.analyzed) lines.push('the planner statistics were not refreshed (ANALYZE failed): autovacuum refreshes them later');
  if (key.from.startsWith('none')) lines.push('master key: the source holds nothing sealed, so none is needed');
  else if (key.inPlace) lines.push(`master key: the daemon's key (${key.daemonReadsFrom}) is the one the copied secrets are sealed with`);
  else
    lines.push(
      `master key: the copied secrets are sealed with the key from ${key.from}; the daemon on PostgreSQL reads ${key.daemonReadsFrom}: ` +
        'put that key there (mode 0600) or set BORDERD_MASTER_KEY to it before starting borderd on PostgreSQL',
    );
  return lines.join('\n');
}

/**
 * The files a start would create that do not exist yet: a new SQLite file with its WAL and shared
 * memory, the master key and the admin token.
 */
function filesAStartMayCreate(config: Config): string[] {
  const dataDir = dataDirOf(config);
  const candidates = [config.security.masterKeyFile ?? join(dataDir, 'master.key'), join(dataDir, 'admin.token')];
  // An existing database keeps its -wal and -shm whatever happens: another process may hold them.
  const db = config.database.path;
  if (config.database.url === undefined && !existsSync(db)) candidates.push(db, `${db}-wal`, `${db}-shm`);
  return candidates.filter((file) => !existsSync(file));
}

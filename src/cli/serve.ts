/**
 * `borderd serve` and `borderd migrate`: the daemon's start, its first-start credentials and
 * listening line, and its signal handling; and migrations on their own.
 *
 * @module cli/serve
 */
import type { CommandModule } from 'yargs';
import type { OpenContext } from '../context.js';
import { createContext } from '../create-context.js';
import { startDaemon } from '../daemon.js';
import { bootstrapDevelopment } from '../services/organizations.js';
import { countOrganizations } from '../store/organizations.js';
import { migrate, schemaVersion } from '../db/migrate.js';
import { stdoutLogIsPretty } from '../logging/logger.js';
import { listenFailure, loadCliConfig, reportError, runWithContext, output, withCommonOptions, type CommonArgs } from './context.js';

interface ServeArgs extends CommonArgs {
  host?: string;
  port?: number;
  logLevel?: string;
}

/** Written to stdout once, never to the log: it holds a secret. */
function firstStartBanner(baseUrl: string, clientId: string, clientSecret: string): string {
  const body = JSON.stringify({ clientId, clientSecret });
  return [
    '',
    'borderd: first start on an empty database; created organization "Development" and one API client.',
    `  clientId:     ${clientId}`,
    `  clientSecret: ${clientSecret}`,
    'The secret is shown only now. Fetch a token with:',
    `  curl -s -X POST ${baseUrl}/v1/auth/m2m/token -H 'content-type: application/json' -d '${body}'`,
    '',
  ].join('\n');
}

export const serveCommand: CommandModule<object, ServeArgs> = {
  command: 'serve',
  describe: 'Run the daemon: HTTP API, webhook delivery and background jobs',
  builder: (y) =>
    withCommonOptions(y)
      .option('host', { type: 'string', describe: 'listen address (server.host)' })
      .option('port', { type: 'number', describe: 'listen port, 0 for any free port (server.port)' })
      .option('log-level', { type: 'string', describe: 'fatal, error, warn, info, debug, trace or silent (log.level)' }) as never,
  handler: async (args) => {
    let ctx: OpenContext | undefined;
    let config: ReturnType<typeof loadCliConfig> | undefined;
    let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
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
      ctx = await createContext(config);
      daemon = await startDaemon(ctx);
      const running = daemon;
      // After the port is bound: a start that fails to listen must not create (and so never show) credentials.
      const dev = config.admin.bootstrapOrganization ? await bootstrapDevelopment(ctx) : undefined;
      const log = ctx.log;
      if (!config.admin.bootstrapOrganization && (await countOrganizations(ctx.db)) === 0) {
        log.info(
          'no organization yet (admin.bootstrapOrganization is off): create one with `borderd orgs create --name NAME`, then `borderd clients create --org ORG`',
        );
      }
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
      ctx.log.info({ url: daemon.url, db: config.database.path, adminTokenFile: daemon.adminTokenFile }, 'borderd listening');
      if (args.json) {
        // One line for a supervisor or script: where it listens and, on a first start, the client made.
        const firstStart = dev ? { organizationId: dev.org.id, clientId: dev.client.id, clientSecret: dev.client.clientSecret } : undefined;
        process.stdout.write(
          JSON.stringify({ listening: daemon.url, adminTokenFile: daemon.adminTokenFile ?? null, ...(firstStart ? { firstStart } : {}) }) +
            '\n',
        );
        return;
      }
      if (dev) human.write(firstStartBanner(baseUrl, dev.client.id, dev.client.clientSecret) + '\n');
      // Last, so a script that waits for this line (borderd on port 0) has the banner too.
      human.write(`borderd listening on ${daemon.url}\n`);
    } catch (err) {
      if (daemon) await daemon.close().catch(() => undefined);
      else if (ctx?.db.open) await ctx.db.close();
      process.exitCode = reportError(
        config ? listenFailure(err, config.server.host, config.server.port, 'server.host, server.port') : err,
        args.json,
      );
    }
  },
};

export const migrateCommand: CommandModule<object, CommonArgs> = {
  command: 'migrate',
  describe: 'Apply pending database migrations (serve does this on start too)',
  builder: (y) => withCommonOptions(y) as never,
  handler: (args) =>
    runWithContext(
      args,
      async (ctx) => {
        const applied = await migrate(ctx.db);
        const version = await schemaVersion(ctx.db);
        output(
          args,
          { version, applied: applied.map((m) => ({ version: m.version, name: m.name })) },
          () => `database ${ctx.config.database.path} is at schema version ${version} (${applied.length} migration(s) applied now)`,
        );
      },
      { migrate: false },
    ),
};

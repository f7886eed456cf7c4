import type { CommandModule } from 'yargs';
import { createContext, type AppContext } from '../context.js';
import { startDaemon } from '../daemon.js';
import { bootstrapDevelopment } from '../services/organizations.js';
import { migrate } from '../db/migrate.js';
import { loadCliConfig, reportError, runWithContext, output, withCommonOptions, type CommonArgs } from './context.js';

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
      .option('log-level', { type: 'string', describe: 'log.level' }) as never,
  handler: async (args) => {
    let ctx: AppContext | undefined;
    try {
      const config = loadCliConfig(args, { 'server.host': args.host, 'server.port': args.port, 'log.level': args.logLevel });
      ctx = createContext(config);
      const dev = await bootstrapDevelopment(ctx);
      const daemon = await startDaemon(ctx);
      const log = ctx.log;
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, 'shutting down: draining requests and deliveries');
        daemon.close().then(
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
      const baseUrl = config.server.publicBaseUrl ?? daemon.url;
      ctx.log.info({ url: daemon.url, db: config.database.path, adminTokenFile: daemon.adminTokenFile }, 'borderd listening');
      if (dev) process.stdout.write(firstStartBanner(baseUrl, dev.client.id, dev.client.clientSecret) + '\n');
      // Last, so a script that waits for this line (borderd on port 0) has the banner too.
      process.stdout.write(`borderd listening on ${daemon.url}\n`);
    } catch (err) {
      ctx?.db.close();
      process.exitCode = reportError(err, args.json);
    }
  },
};

export const migrateCommand: CommandModule<object, CommonArgs> = {
  command: 'migrate',
  describe: 'Apply pending database migrations (serve does this on start too)',
  builder: (y) => withCommonOptions(y) as never,
  handler: (args) =>
    runWithContext(args, (ctx) => {
      // createContext already migrated; report what the schema is at now.
      const again = migrate(ctx.db);
      const row = ctx.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number };
      output(args, { version: row.v, applied: again.length }, () => `database ${ctx.config.database.path} is at schema version ${row.v}`);
    }),
};

/**
 * Every `borderd` command group: its name and description, and how to load the module that builds and
 * runs it. `--help`, completion and "did you mean" need only the names, so a command loads only its
 * own group's code (the daemon, the database drivers, the HTTP client) and none of the others'. A
 * group's module holds its builder and handler alone: the name and description written here are
 * given to it as it loads, so each is written once and no module imports this list back.
 *
 * @module cli/command-groups
 */
import type { CommandModule } from 'yargs';

/** A command group as yargs lists it, and the module that implements it. */
export interface CommandGroup {
  readonly command: string;
  readonly describe: string;
  load(): Promise<CommandModule<object, never>>;
}

const group = (command: string, describe: string, load: () => Promise<object>): CommandGroup => ({
  command,
  describe,
  load: async () => ({ ...(await load()), command, describe }) as CommandModule<object, never>,
});

/** In the order `borderd --help` lists them. */
export const COMMAND_GROUPS = {
  serve: group(
    'serve',
    'Run the daemon: HTTP API, webhook delivery and background jobs',
    async () => (await import('./serve.js')).serveCommand,
  ),
  migrate: group(
    'migrate',
    'Apply pending database migrations (serve does this on start too), or copy a SQLite database into PostgreSQL',
    async () => (await import('./serve.js')).migrateCommand,
  ),
  orgs: group('orgs', 'Manage organizations (create, list)', async () => (await import('./orgs.js')).orgsCommand),
  clients: group('clients', 'Manage API clients (create, list, revoke)', async () => (await import('./orgs.js')).clientsCommand),
  tx: group('tx', 'Create orchestrated transactions and move their status (emits events)', async () => (await import('./tx.js')).txCommand),
  events: group(
    'events',
    'Emit events through the outbox (synthetic, compliance checks, virtual accounts)',
    async () => (await import('./events.js')).eventsCommand,
  ),
  webhooks: group(
    'webhooks',
    'List webhooks with their health; enable (with replay) or disable them',
    async () => (await import('./webhooks.js')).webhooksCommand,
  ),
  outbox: group(
    'outbox',
    'Inspect deliveries and their attempts; replay events; prune old ones',
    async () => (await import('./outbox.js')).outboxCommand,
  ),
  identities: group('identities', 'Manage identities (import, create)', async () => (await import('./identities.js')).identitiesCommand),
  accounts: group('accounts', 'Manage accounts (create)', async () => (await import('./accounts.js')).accountsCommand),
  import: group('import', 'Import data files (transactions)', async () => (await import('./import.js')).importCommand),
  refunds: group('refunds', 'Refund plans (list, dispatch)', async () => (await import('./refunds.js')).refundsCommand),
  keys: group('keys', 'Manage keys (card-network)', async () => (await import('./keys.js')).keysCommand),
  inbound: group(
    'inbound',
    'Card-network notifications received (list, show, retry, purge) and ica mappings',
    async () => (await import('./inbound.js')).inboundCommand,
  ),
  receive: group(
    'receive',
    'Verify webhook deliveries and forward them to a local app (listen or --tunnel); replay captured events',
    async () => (await import('./receive.js')).receiveCommand,
  ),
  token: group(
    'token',
    'Print an access token for an API client, bare (TOKEN=$(borderd token)), from a running borderd',
    async () => (await import('./token.js')).tokenCommand,
  ),
} as const;

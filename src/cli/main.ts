import yargs, { type CommandModule } from 'yargs';
import { VERSION } from '../version.js';
import { reportError } from './context.js';
import { clientsCommand, orgsCommand } from './orgs.js';
import { migrateCommand, serveCommand } from './serve.js';
import { eventsCommand } from './events.js';
import { outboxCommand } from './outbox.js';
import { txCommand } from './tx.js';
import { webhooksCommand } from './webhooks.js';

/** Every command group, one line each. */
const commands: CommandModule<object, never>[] = [
  serveCommand as CommandModule<object, never>,
  migrateCommand as CommandModule<object, never>,
  orgsCommand as CommandModule<object, never>,
  clientsCommand as CommandModule<object, never>,
  ...[txCommand, eventsCommand, webhooksCommand, outboxCommand].map((c) => c as CommandModule<object, never>),
];

export async function main(argv: string[]): Promise<void> {
  let cli = yargs(argv).scriptName('borderd').version(VERSION).strict().demandCommand(1, 'name a command; see borderd --help');
  for (const command of commands) cli = cli.command(command);
  try {
    await cli
      .fail((msg, err, y) => {
        if (err) throw err;
        process.stderr.write(`${y.help() && ''}borderd: ${msg}\n`);
        process.exit(2);
      })
      .wrap(Math.min(110, process.stdout.columns ?? 100))
      .parseAsync();
  } catch (err) {
    process.exitCode = reportError(err, argv.includes('--json'));
  }
}

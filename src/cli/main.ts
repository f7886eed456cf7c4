/**
 * The `borderd` command line: every command group under one yargs parser, errors and exit codes
 * reported in one line.
 *
 * @module cli/main
 */
import { createRequire } from 'node:module';
import type { CommandModule } from 'yargs';
import { unknownEnvWarnings } from '../config/env-names.js';
import { editDistance } from '../domain/nearest-word.js';
import { VERSION } from '../version.js';
import { reportError } from './context.js';
import { parserView, usageSentence } from './usage-errors.js';
import { inboundCommand } from './inbound.js';
import { keysCommand } from './keys.js';
import { clientsCommand, orgsCommand } from './orgs.js';
import { receiveCommand } from './receive.js';
import { migrateCommand, serveCommand } from './serve.js';
import { accountsCommand } from './accounts.js';
import { identitiesCommand } from './identities.js';
import { importCommand } from './import.js';
import { refundsCommand } from './refunds.js';
import { eventsCommand } from './events.js';
import { outboxCommand } from './outbox.js';
import { tokenCommand } from './token.js';
import { txCommand } from './tx.js';
import { webhooksCommand } from './webhooks.js';

/**
 * yargs through its CommonJS entry: the ES module build of yargs 17 wraps help text at a fixed
 * column count, cutting words in half ("refuse" / "d when ..."); the CommonJS build wraps between words.
 */
const yargs = createRequire(import.meta.url)('yargs') as typeof import('yargs').default;

/** Every command group, one line each. */
const commands = [
  serveCommand,
  migrateCommand,
  orgsCommand,
  clientsCommand,
  txCommand,
  eventsCommand,
  webhooksCommand,
  outboxCommand,
  identitiesCommand,
  accountsCommand,
  importCommand,
  refundsCommand,
  keysCommand,
  inboundCommand,
  receiveCommand,
  tokenCommand,
] as CommandModule<object, never>[];

/**
 * yargs's "Did you mean orgs?" (recommendCommands) names the command it suggests, not the word that
 * was typed: that is the word on the command line nearest to the suggestion.
 */
function recommendation(msg: string, argv: readonly string[]): string | undefined {
  const suggested = /^Did you mean (\S+)\?$/.exec(msg)?.[1];
  if (suggested === undefined) return undefined;
  const words = argv.filter((w) => !w.startsWith('-') && w !== suggested);
  const typed = words.sort((a, b) => editDistance(a, suggested) - editDistance(b, suggested))[0];
  return `unknown command${typed === undefined ? '' : ` ${typed}`}: did you mean ${suggested}? (borderd --help lists them)`;
}

export async function main(argv: string[]): Promise<void> {
  for (const warning of unknownEnvWarnings(process.env)) process.stderr.write(`borderd: ${warning}\n`);
  let cli = yargs(argv)
    .scriptName('borderd')
    .version(VERSION)
    .strict()
    .recommendCommands()
    .completion('completion', 'Print a shell completion script (bash or zsh): borderd completion >> ~/.bashrc')
    .demandCommand(1, 'name a command; see borderd --help');
  for (const command of commands) cli = cli.command(command);
  try {
    await cli
      .fail((msg, err, y) => {
        // yargs's own usage errors (a coerce refusing a value among them) arrive as YError: usage, exit 2.
        if (err && err.name !== 'YError') throw err;
        const sentence = recommendation(String(msg), argv) ?? usageSentence(String(msg), parserView(cli), argv);
        process.stderr.write(`${y.help() && ''}borderd: ${sentence}\n`);
        process.exit(2);
      })
      .wrap(Math.min(110, process.stdout.columns ?? 100))
      .parseAsync();
  } catch (err) {
    process.exitCode = reportError(err, argv.includes('--json'));
  }
}

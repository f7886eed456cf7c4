/**
 * The `borderd` command line: every command group under one yargs parser, errors and exit codes
 * reported in one line.
 *
 * @module cli/main
 */
import { createRequire } from 'node:module';
import type { CommandModule } from 'yargs';
import { VERSION } from '../version.js';
import { reportError } from './context.js';
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

/** Levenshtein distance, for the few short words of a command line. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

export async function main(argv: string[]): Promise<void> {
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
        // One line: yargs lays some messages out over several ("Invalid values:" and the choices below it).
        process.stderr.write(`${y.help() && ''}borderd: ${recommendation(String(msg), argv) ?? String(msg).replace(/\s*\n\s*/g, ' ')}\n`);
        process.exit(2);
      })
      .wrap(Math.min(110, process.stdout.columns ?? 100))
      .parseAsync();
  } catch (err) {
    process.exitCode = reportError(err, argv.includes('--json'));
  }
}

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
import { COMMAND_GROUPS, type CommandGroup } from './command-groups.js';
import { parserView, usageSentence } from './usage-errors.js';

/**
 * yargs through its CommonJS entry: the ES module build of yargs 17 wraps help text at a fixed
 * column count, cutting words in half ("refuse" / "d when ..."); the CommonJS build wraps between words.
 */
const yargs = createRequire(import.meta.url)('yargs') as typeof import('yargs').default;

/**
 * The group the command line runs: the first word that names one (after `--get-yargs-completions`
 * too, so completion sees that group's subcommands and options).
 */
function namedGroup(argv: readonly string[]): CommandGroup | undefined {
  const word = argv.find((w) => Object.hasOwn(COMMAND_GROUPS, w));
  return word === undefined ? undefined : COMMAND_GROUPS[word as keyof typeof COMMAND_GROUPS];
}

/**
 * A group as `--help`, completion and "did you mean" list it, without its module. It runs only when
 * an option's value before the command names another group; it then parses again with its own module.
 */
function listedOnly(group: CommandGroup, argv: string[]): CommandModule<object, never> {
  return { command: group.command, describe: group.describe, builder: (y) => y.strict(false) as never, handler: () => run(argv, group) };
}

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
  await run(argv, namedGroup(argv));
}

/** Parses and runs the command line with the module of `group` loaded, and only that one. */
async function run(argv: string[], group: CommandGroup | undefined): Promise<void> {
  let cli = yargs(argv)
    .scriptName('borderd')
    .version(VERSION)
    .strict()
    .recommendCommands()
    .completion('completion', 'Print a shell completion script (bash or zsh): borderd completion >> ~/.bashrc')
    .demandCommand(1, 'name a command; see borderd --help');
  const loaded = await group?.load();
  for (const listed of Object.values(COMMAND_GROUPS)) cli = cli.command(listed === group && loaded ? loaded : listedOnly(listed, argv));
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
    const { reportError } = await import('./context.js');
    process.exitCode = reportError(err, argv.includes('--json'));
  }
}

/**
 * yargs's usage errors said as borderd says everything else: one short sentence naming what was
 * typed, the nearest valid option or value, and where the full list is. Messages yargs words well
 * enough (or that borderd's own checks raise) pass through on one line.
 *
 * @module cli/usage-errors
 */
import { nearestWord } from '../domain/nearest-word.js';

/** What the parser knew when it failed: the commands on the way (`tx`, `status <id> <status>`), their options and choices. */
export interface ParserView {
  fullCommands: readonly string[];
  options: readonly string[];
  choices: Readonly<Record<string, readonly unknown[]>>;
}

/** The parts of a yargs instance its type declarations leave out, read when a usage error comes. */
interface YargsInternals {
  getOptions(): { key: Record<string, unknown>; choices: Record<string, unknown[]> };
  getInternalMethods(): { getContext(): { fullCommands: string[] } };
}

/** The view of the root yargs instance: during a command it holds that command's options. */
export function parserView(yargs: unknown): ParserView {
  const y = yargs as YargsInternals;
  const options = y.getOptions();
  return { fullCommands: y.getInternalMethods().getContext().fullCommands, options: Object.keys(options.key), choices: options.choices };
}

/** `tx status`: the command as typed, without its positionals. */
const commandWords = (view: ParserView) => view.fullCommands.map((c) => c.split(' ')[0]!).join(' ');
const commandLine = (view: ParserView) => `borderd ${commandWords(view)}`;

const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/** yargs's list of names or values: `a, b` or `"a", "b"`. */
const listed = (text: string) => text.split(/,\s*/).map((s) => s.trim().replace(/^"(.*)"$/, '$1'));

export function usageSentence(message: string, view: ParserView, argv: readonly string[]): string {
  const flat = message.replace(/\s*\n\s*/g, ' ');
  const help = `${commandLine(view)} --help`;

  const unknown = /^Unknown arguments?: (.+)$/.exec(flat);
  if (unknown) {
    const word = listed(unknown[1]!)[0]!;
    const typedAsOption = argv.some((a) => a === `--${word}` || a.startsWith(`--${word}=`) || a === `-${word}`);
    if (!typedAsOption) return `unexpected argument ${word} (${help} shows the usage)`;
    const options = [...new Set(view.options.map(kebab))].filter((o) => o !== 'help' && o !== 'version');
    const nearest = nearestWord(word, options);
    return `unknown option --${word}${nearest ? `: did you mean --${nearest}?` : ''} (${help} lists the options)`;
  }

  const notEnough = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(flat);
  if (notEnough) {
    const last = view.fullCommands.at(-1) ?? '';
    const positionals = last.split(' ').slice(1);
    if (positionals.length === 0) return `${commandWords(view)} needs a command (${help} lists them)`;
    const missing = positionals.filter((p) => p.startsWith('<')).slice(Number(notEnough[1]));
    return `${commandWords(view)} needs ${missing.join(' ')} (${commandLine(view)} ${positionals.join(' ')})`;
  }

  const invalid = /^Invalid values: Argument: ([^,]+), Given: (.+?), Choices: (.+)$/.exec(flat);
  if (invalid) {
    const [option, given, choices] = [invalid[1]!, listed(invalid[2]!)[0]!, listed(invalid[3]!)];
    const nearest = nearestWord(given, choices);
    return `--${kebab(option)} ${given} is not one of ${choices.join(', ')}${nearest ? `: did you mean ${nearest}?` : ''}`;
  }

  const required = /^Missing required arguments?: (.+)$/.exec(flat);
  if (required)
    return `${commandWords(view)} needs ${listed(required[1]!)
      .map((o) => `--${kebab(o)}`)
      .join(' and ')} (${help})`;

  return flat;
}

/**
 * The BORDERD_* environment names borderd reads, and a warning for any other: a YAML key that is
 * not a setting is refused, and a misspelled variable must not pass silently either.
 *
 * @module config/env-names
 */
import { nearestWord } from '../domain/nearest-word.js';
import { configEnvNames } from './load.js';

/** The names read outside the config: the CLI's credentials and targets, and its own log level. */
const COMMAND_ENV_NAMES = [
  'BORDERD_URL', // token, the tour: the daemon's base URL
  'BORDERD_CLIENT_ID', // token, receive: API client credentials
  'BORDERD_CLIENT_SECRET',
  'BORDERD_WEBHOOK_SECRET', // receive: a webhook's whsec_… secret
  'BORDERD_KEY_PASSPHRASE', // keys card-network import: a keystore's password
  'BORDERD_CLI_LOG_LEVEL', // every command but serve: the level of its stderr log
  'BORDERD_PUBLIC_KEY', // docs/verify.md's middleware: the public key an integrator's app verifies with
];

/** Prefixes of names that belong to borderd's own test and documentation runs, not to a deployment. */
const OWN_PREFIXES = ['BORDERD_TEST_', 'BORDERD_CONSOLE_SCREENSHOTS'];

/** One warning per BORDERD_* name in `env` that borderd does not read, naming the nearest one it does. */
export function unknownEnvWarnings(env: NodeJS.ProcessEnv): string[] {
  const known = new Set([...configEnvNames(), ...COMMAND_ENV_NAMES]);
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('BORDERD_') || known.has(name) || OWN_PREFIXES.some((p) => name.startsWith(p))) continue;
    // Compared without the common prefix, which would make any two names look alike.
    const nearest = nearestWord(
      name.slice('BORDERD_'.length),
      [...known].map((k) => k.slice('BORDERD_'.length)),
    );
    warnings.push(
      `environment variable ${name} is not a borderd setting and is ignored${nearest ? `; did you mean BORDERD_${nearest}?` : ''}`,
    );
  }
  return warnings;
}

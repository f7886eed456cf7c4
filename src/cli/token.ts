/**
 * `borderd token`: an access token from a running borderd for an API client, printed bare, so a
 * shell takes it as it is: `TOKEN=$(borderd token)`. It talks to the daemon over HTTP (the same
 * request integrators make), never to its database.
 *
 * @module cli/token
 */
import type { CommandModule } from 'yargs';
import { isRefusedByBorderd } from '../verify/errors.js';
import { fetchAccessToken } from '../verify/public-key.js';
import { CliExit, reportError } from './context.js';

interface TokenArgs {
  url?: string;
  'client-id'?: string;
  'client-secret'?: string;
  json: boolean;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

async function runToken(args: TokenArgs): Promise<void> {
  const baseUrl = args.url ?? (process.env.BORDERD_URL || DEFAULT_BASE_URL);
  if (!/^https?:\/\//.test(baseUrl) || !URL.canParse(baseUrl)) throw new CliExit(2, `--url ${baseUrl}: give borderd's http(s) base URL`);
  // Env vars keep the secret out of `ps` output; flags win when both are given.
  const clientId = args['client-id'] ?? process.env.BORDERD_CLIENT_ID;
  const clientSecret = args['client-secret'] ?? process.env.BORDERD_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new CliExit(2, 'token needs --client-id and --client-secret (or BORDERD_CLIENT_ID / BORDERD_CLIENT_SECRET)');
  let accessToken: string;
  try {
    accessToken = await fetchAccessToken(baseUrl, { clientId, clientSecret });
  } catch (err) {
    const refused = isRefusedByBorderd(err);
    throw new CliExit(1, `${(err as Error).message}${refused ? '; check --client-id and --client-secret' : ''}`);
  }
  process.stdout.write(args.json ? `${JSON.stringify({ accessToken })}\n` : `${accessToken}\n`);
}

export const tokenCommand: CommandModule<object, TokenArgs> = {
  builder: (y) =>
    y
      .option('url', { type: 'string', describe: `borderd's base URL (default BORDERD_URL, else ${DEFAULT_BASE_URL})` })
      .option('client-id', { type: 'string', describe: 'the API client (default BORDERD_CLIENT_ID)' })
      .option('client-secret', { type: 'string', describe: 'its secret (default BORDERD_CLIENT_SECRET, which keeps it out of ps)' })
      .option('json', { type: 'boolean', default: false, describe: 'print {"accessToken": …}' }) as never,
  handler: async (args) => {
    try {
      await runToken(args);
    } catch (err) {
      process.exitCode = reportError(err, args.json);
    }
  },
};

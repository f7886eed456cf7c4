/**
 * The outbox benchmark's PostgreSQL peer (bench/graphile-peer.ts) on a server of its own, with a
 * small backlog: Graphile Worker in two processes delivers every job once to the verifying receiver
 * (each signature checked there), and the phase's ledger balances. No timing: the figures belong to
 * `npm run bench -- --only outbox --postgres`. Needs `npm run build` (the worker runs compiled).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { graphilePeer } from '../../bench/graphile-peer.js';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.js';
import { expectDrainedByTwo } from './peer-drain.js';

let server: OwnPostgres;

beforeAll(async () => {
  server = await startOwnPostgres();
});

afterAll(async () => {
  await server?.remove();
});

describe('the Graphile Worker peer', () => {
  it(
    'delivers the whole backlog, signed and verified, split between its processes, with a balanced ledger',
    { timeout: 120_000 },
    async () => {
      const lines: string[] = [];
      const backlog = 120;
      const result = await graphilePeer(server, 2, backlog, (line) => lines.push(line));
      expectDrainedByTwo(result, backlog, lines);
    },
  );
});

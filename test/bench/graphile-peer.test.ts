/**
 * The outbox benchmark's PostgreSQL peer (bench/graphile-peer.ts) on a server of its own, with a
 * small backlog: Graphile Worker in two processes delivers a warm-up backlog and then the measured
 * one, every job once, to the verifying receiver (each signature checked there), and each phase's
 * ledger balances. No timing: the figures belong to
 * `npm run bench -- --only outbox --postgres`. Needs `npm run build` (the worker runs compiled).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    'delivers a warm-up backlog and then the measured one by the same processes, signed and verified, each with a balanced ledger',
    { timeout: 120_000 },
    async () => {
      const lines: string[] = [];
      const backlog = 120;
      const result = await graphilePeer(server, 2, backlog, (line) => lines.push(line));
      expect(result.fresh?.ledger.phase).toBe('backlog, fresh, Graphile Worker, 2 processes');
      expect(result.ledger.phase).toBe('backlog, warm, Graphile Worker, 2 processes');
      expectDrainedByTwo(result, backlog, lines);
    },
  );
});

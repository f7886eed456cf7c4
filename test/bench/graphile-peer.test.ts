/**
 * The outbox benchmark's PostgreSQL peer (bench/graphile-peer.ts) on a server of its own, with a
 * small backlog: Graphile Worker in two processes delivers every job once to the verifying receiver
 * (each signature checked there), and the phase's ledger balances. No timing: the figures belong to
 * `npm run bench -- --only outbox --postgres`. Needs `npm run build` (the worker runs compiled).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphilePeer } from '../../bench/graphile-peer.js';
import { balances } from '../../bench/ledger.js';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.js';

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
      expect(result.processes).toBe(2);
      expect(result.ledger).toMatchObject({ written: backlog, delivered: backlog, missing: 0, unknown: 0 });
      expect(balances(result.ledger)).toBe(true);
      // Every job was answered 2xx by the receiver, which answers 400 to a signature that does not verify.
      expect(result.deliveredBy).toHaveLength(2);
      expect(result.deliveredBy.reduce((a, b) => a + b, 0)).toBe(backlog + result.ledger.duplicated);
      expect(result.deliveriesPerSecond).toBeGreaterThan(0);
      expect(result.workersMs).toHaveLength(2);
      expect(result.databaseMs).toBeGreaterThan(0);
      expect(lines).toEqual([]);
    },
  );
});

/**
 * The outbox benchmark's Redis peer (bench/bullmq-peer.ts) on a private redis-server, with a small
 * backlog: BullMQ in two processes delivers a warm-up backlog and then the measured one, every job
 * once to the verifying receiver (each signature checked there), and both ledgers balance. Without redis-server on the PATH the
 * comparison says it skipped the peer and why. No timing: the figures belong to
 * `npm run bench -- --only outbox`. Needs `npm run build` (the workers run compiled).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullmqComparison, bullmqPeer } from '../../bench/bullmq-peer.js';
import { redisMissing, startRedis, type RedisServer } from '../../bench/bullmq-redis.js';
import { expectDrainedByTwo } from './peer-drain.js';

const missing = redisMissing();
let redis: RedisServer | undefined;

beforeAll(async () => {
  if (missing === undefined) redis = await startRedis();
});

afterAll(async () => {
  await redis?.stop();
});

describe('the BullMQ peer', () => {
  it.skipIf(missing !== undefined)(
    'delivers the whole backlog, signed and verified, split between its processes, with a balanced ledger',
    { timeout: 120_000 },
    async () => {
      const lines: string[] = [];
      const backlog = 120;
      const result = await bullmqPeer(redis!, 2, backlog, 'test_backlog', (line) => lines.push(line), { round: 1, warmUp: 2 * backlog });
      expect(result.fresh?.ledger.phase).toBe('backlog, fresh, BullMQ, round 1, 2 processes');
      expect(result.ledger.phase).toBe('backlog, warm, BullMQ, round 1, 2 processes');
      expectDrainedByTwo(result, backlog, lines);
    },
  );

  it('is skipped, saying why, where redis-server is not on the PATH', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'borderd-no-redis-'));
    const path = process.env.PATH;
    process.env.PATH = empty;
    try {
      const lines: string[] = [];
      const outcome = await bullmqComparison(true, (line) => lines.push(line));
      expect(outcome.metrics.bullmqSkipped).toMatch(/redis-server is not on the PATH \(ENOENT\)/);
      expect(outcome.rows).toEqual([expect.objectContaining({ metric: 'borderd ÷ BullMQ on Redis', value: 'skipped' })]);
      expect(lines).toEqual([expect.stringMatching(/^outbox: BullMQ peer skipped: redis-server is not on the PATH/)]);
    } finally {
      process.env.PATH = path;
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

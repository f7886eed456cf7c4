/**
 * What the benchmark's peers (Graphile Worker, BullMQ) must show after draining a small backlog in
 * two processes: every job delivered and verified once, split between the processes, a balanced
 * ledger, and the CPU of workers and of the queue's server counted; after a warm-up backlog, the
 * same of it, by the same processes.
 *
 * @module test/bench/peer-drain
 */
import { expect } from 'vitest';
import { balances } from '../../bench/ledger.js';
import type { PeerResult } from '../../bench/peer-process.js';

export function expectDrainedByTwo(result: PeerResult, backlog: number, lines: readonly string[]): void {
  expect(result.processes).toBe(2);
  expect(result.ledger).toMatchObject({ written: backlog, delivered: backlog, missing: 0, unknown: 0 });
  expect(balances(result.ledger)).toBe(true);
  // Every job was answered 2xx by the receiver, which answers 400 to a signature that does not verify.
  expect(result.deliveredBy).toHaveLength(2);
  const warmUp = result.fresh ? [result.fresh] : [];
  for (const fresh of warmUp) {
    // The warm-up is the backlog's size for each process.
    expect(fresh.ledger).toMatchObject({ written: 2 * backlog, delivered: 2 * backlog, missing: 0, unknown: 0 });
    expect(fresh.workersMs).toHaveLength(2);
  }
  // The same processes delivered both backlogs: stopped after the second, each counts its jobs of both.
  const delivered = [result, ...warmUp].reduce((sum, d) => sum + d.ledger.written + d.ledger.duplicated, 0);
  expect(result.deliveredBy.reduce((a, b) => a + b, 0)).toBe(delivered);
  expect(result.deliveriesPerSecond).toBeGreaterThan(0);
  expect(result.workersMs).toHaveLength(2);
  // The queue's server's own CPU (PostgreSQL, Redis) is seen and counted: in each drain, and more
  // than nothing over both together (the kernel counts a process's CPU in 10 ms ticks, and a
  // backlog of this size can cost its server less than one).
  const serverMs = [result, ...warmUp].map((d) => d.databaseMs);
  for (const ms of serverMs) expect(ms).toBeGreaterThanOrEqual(0);
  expect(serverMs.reduce((a: number, b) => a + (b ?? 0), 0)).toBeGreaterThan(0);
  expect(lines).toEqual([]);
}

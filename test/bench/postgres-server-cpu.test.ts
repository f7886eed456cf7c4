/**
 * The benchmark's PostgreSQL server counts the CPU of every process it ran: a backend's CPU stays
 * counted after its connection closes and the process ends (the postmaster's reaped children), so
 * a measurement over which connections close or autovacuum workers come and go loses none of it.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPostgresServer, type PostgresServer } from '../../bench/postgres-server.js';

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgresServer();
}, 120_000);

afterAll(async () => {
  await server?.remove();
});

describe("the bench's PostgreSQL server", () => {
  it("keeps a backend's CPU counted after the backend has ended", { timeout: 60_000 }, async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const before = server.cpuSeconds();
    const pid = Number((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
    // Work enough to show in clock ticks of 10 ms.
    await client.query('SELECT count(*) FROM generate_series(1, 3000000)');
    const busy = server.cpuSeconds();
    expect(busy - before).toBeGreaterThan(0.05);
    await client.end();
    const watcher = new pg.Client({ connectionString: server.url });
    await watcher.connect();
    try {
      await vi.waitFor(async () => expect((await watcher.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount).toBe(0), {
        timeout: 10_000,
        interval: 20,
      });
    } finally {
      await watcher.end();
    }
    // Its process is gone from /proc once the postmaster has reaped it.
    await vi.waitFor(() => expect(existsSync(`/proc/${pid}`)).toBe(false), { timeout: 10_000, interval: 20 });
    expect(server.cpuSeconds()).toBeGreaterThanOrEqual(busy);
  });
});

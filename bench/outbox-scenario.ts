import type { ChildServer } from './child-server.js';
import { startChildServer } from './child-server.js';
import { openConnection } from '../src/db/sqlite-connection.js';
import { bearerToken, cli, type BenchDaemon } from './daemon-process.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import pg from 'pg';
import { load, type LoadResult } from './http-load.js';
import { summarize } from './percentiles.js';

export interface ReceiverStats {
  deliveries: number;
  failures: number;
  distinctEvents: number;
  firstAt: number;
  lastAt: number;
  latenciesMs?: number[];
}

/** The counts of the verifying receiver at `url` (webhook-receiver-server.ts) since its last reset. */
export async function receiverStats(url: string, withLatencies = false): Promise<ReceiverStats> {
  return (await (await fetch(`${url}/stats${withLatencies ? '?latencies=1' : ''}`)).json()) as ReceiverStats;
}

/**
 * Waits until the receiver at `url` has seen `deliveries` verified deliveries (or, with `count:
 * 'distinctEvents'`, that many different events); throws on a signature failure.
 */
export async function waitForReceipts(
  url: string,
  deliveries: number,
  timeoutMs: number,
  count: 'deliveries' | 'distinctEvents' = 'deliveries',
): Promise<ReceiverStats> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await receiverStats(url);
    if (s.failures > 0) throw new Error(`${s.failures} deliveries failed signature verification`);
    if (s[count] >= deliveries) return s;
    if (Date.now() > until) throw new Error(`timed out waiting for ${deliveries} ${count} (seen ${s[count]})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * One organization of a running daemon, its webhooks pointing at one verifying local receiver,
 * and the admin API that writes events. Shared by the outbox and growth benchmarks.
 */
export class OutboxScenario {
  private constructor(
    readonly daemon: BenchDaemon,
    readonly receiver: ChildServer,
    readonly orgId: string,
    private readonly token: string,
    readonly webhookIds: string[] = [],
  ) {}

  static async start(daemon: BenchDaemon): Promise<OutboxScenario> {
    const [org] = await cli<{ id: string }[]>(['orgs', 'list', ...daemon.databaseArgs], { BORDERD_DATA_DIR: daemon.dataDir });
    const receiver = await startChildServer('webhook-receiver-server');
    return new OutboxScenario(daemon, receiver, org!.id, await bearerToken(daemon));
  }

  async #api(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(this.daemon.url + path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : res.json();
  }

  /** Adds webhooks (to the one receiver, told apart by path) and hands the org's public key to the receiver. */
  async addWebhooks(count: number, enabled: boolean): Promise<void> {
    for (let i = 0; i < count; i++) {
      const created = (await this.#api('POST', '/v1/notifications/webhooks/settings', {
        url: `${this.receiver.url}/hook/${this.webhookIds.length}`,
        enabled,
      })) as { id: string };
      this.webhookIds.push(created.id);
    }
    const key = (await this.#api('GET', '/v1/notifications/webhooks/settings/public-key')) as { publicKey: string };
    const put = await fetch(`${this.receiver.url}/public-key`, { method: 'PUT', body: key.publicKey });
    if (put.status !== 204) throw new Error(`receiver refused the public key: ${put.status}`);
  }

  async setEnabled(enabled: boolean): Promise<void> {
    for (const [i, id] of this.webhookIds.entries()) {
      await this.#api('PATCH', `/v1/notifications/webhooks/settings/${id}`, { url: `${this.receiver.url}/hook/${i}`, enabled });
    }
  }

  /** Writes events through the admin API with autocannon: as fast as possible, or at a fixed offered rate. */
  async writeEvents(opts: { amount?: number; durationSeconds?: number; overallRate?: number; connections?: number }): Promise<LoadResult> {
    const body = JSON.stringify({ orgId: this.orgId, type: 'Transaction_Updated' });
    const r = await load({
      url: `${this.daemon.url}/admin/v1/events`,
      method: 'POST',
      headers: { authorization: `Bearer ${this.daemon.adminToken}` },
      body: () => body,
      connections: opts.connections ?? 10,
      ...opts,
    });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`writing events: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    return r;
  }

  /**
   * Writes events at exactly `rate` per second for `durationSeconds`: request i is sent at
   * t0 + i / rate, whether or not earlier ones were answered (an open loop, unlike autocannon's
   * overallRate, which sends each second's quota in a burst). A sender that falls behind sends what
   * is overdue at once and reports how late it got, so a run that could not offer the rate says so.
   */
  async writeEventsPaced(
    rate: number,
    durationSeconds: number,
    /** Nodes of the same database to write to in turn; the scenario's daemon alone by default. */
    urls: readonly string[] = [this.daemon.url],
  ): Promise<{ requests: number; offeredPerSecond: number; maxLagMs: number; p99Ms: number }> {
    const body = JSON.stringify({ orgId: this.orgId, type: 'Transaction_Updated' });
    const path = '/admin/v1/events';
    const pools = urls.map((url) => new Pool(new URL(url).origin, { connections: 64, pipelining: 1 }));
    const headers = { authorization: `Bearer ${this.daemon.adminToken}`, 'content-type': 'application/json' };
    const total = Math.round(rate * durationSeconds);
    const intervalMs = 1000 / rate;
    const answers: Promise<void>[] = [];
    const times: number[] = [];
    let failures = 0;
    let firstFailure = '';
    let maxLagMs = 0;
    const t0 = performance.now();
    try {
      for (let i = 0; i < total;) {
        const now = performance.now();
        const dueAt = t0 + i * intervalMs;
        if (dueAt > now) {
          await sleep(dueAt - now);
          continue;
        }
        maxLagMs = Math.max(maxLagMs, now - dueAt);
        const sentAt = performance.now();
        answers.push(
          pools[i % pools.length]!.request({ method: 'POST', path, headers, body }).then(
            async (res) => {
              const text = await res.body.text();
              times.push(performance.now() - sentAt);
              if (res.statusCode !== 201) {
                failures++;
                firstFailure ||= `${res.statusCode} ${text.slice(0, 300)}`;
              }
            },
            (err: unknown) => {
              failures++;
              firstFailure ||= String(err);
            },
          ),
        );
        i++;
      }
      const sentFor = performance.now() - t0;
      await Promise.all(answers);
      if (failures > 0) throw new Error(`writing events: ${failures} failed or non-201 answers; the first: ${firstFailure}`);
      return { requests: total, offeredPerSecond: (total * 1000) / Math.max(sentFor, 1), maxLagMs, p99Ms: summarize(times).p99 };
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  }

  /**
   * Enables every webhook and makes every skipped delivery (written while its webhook was disabled)
   * due now, in one transaction on a second connection: what `borderd webhooks enable --replay-since`
   * does per webhook, done at once for all of them so the backlog starts as one. The daemon sees the
   * rows at its next poll (delivery.pollIntervalMs).
   */
  async releaseBacklog(): Promise<void> {
    const now = Date.now();
    const at = new Date(now).toISOString();
    const enable = 'UPDATE webhooks SET enabled = 1, disabled_reason = NULL, disabled_at = NULL, updated_at = ? WHERE org_id = ?';
    const release =
      "UPDATE deliveries SET state = 'pending', step = 0, next_attempt_at = ?, claimed_by = NULL, lease_until = NULL, updated_at = ? WHERE org_id = ? AND state = 'skipped'";
    if (this.daemon.databaseUrl !== undefined) {
      const client = new pg.Client({ connectionString: this.daemon.databaseUrl });
      await client.connect();
      const numbered = (sql: string) => sql.replace(/\?/g, (_, i: number) => `$${sql.slice(0, i).split('?').length}`);
      try {
        await client.query('BEGIN');
        await client.query(numbered(enable), [at, this.orgId]);
        await client.query(numbered(release), [now, at, this.orgId]);
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
      return;
    }
    const db = openConnection(this.daemon.dbPath);
    try {
      db.transaction(() => {
        db.prepare(enable).run(at, this.orgId);
        db.prepare(release).run(now, at, this.orgId);
      }).immediate();
    } finally {
      db.close();
    }
  }

  async stats(withLatencies = false): Promise<ReceiverStats> {
    return receiverStats(this.receiver.url, withLatencies);
  }

  async resetReceiver(): Promise<void> {
    await fetch(`${this.receiver.url}/reset`, { method: 'POST' });
  }

  /** waitForReceipts on this scenario's receiver. */
  async waitForDeliveries(
    deliveries: number,
    timeoutMs: number,
    count: 'deliveries' | 'distinctEvents' = 'deliveries',
  ): Promise<ReceiverStats> {
    return waitForReceipts(this.receiver.url, deliveries, timeoutMs, count);
  }

  async stop(): Promise<void> {
    await this.receiver.stop();
  }
}

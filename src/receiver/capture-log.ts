/**
 * The receiver's own small SQLite file: every delivery it accepted (body and signed headers, so a
 * replay sends the same bytes), what the local app answered, and the tunnel's resume cursor.
 * Dedupe rule: an event whose forward got a 2xx is not forwarded again; a failed one is.
 *
 * @module receiver/capture-log
 */
import { chmodSync, existsSync } from 'node:fs';
import { startBackgroundCheckpoints, type BackgroundCheckpoints } from '../db/background-checkpoints.js';
import { openConnection, type Connection } from '../db/sqlite-connection.js';

export interface CapturedEvent {
  eventId: string;
  eventType: string;
  /** As it was recorded: listen mode's bytes come back as a Buffer (a BLOB), a tunnel's string as a string. */
  body: string | Buffer;
  headers: Record<string, string>;
  receivedAt: string;
  target: string | null;
  forwardStatus: number | null;
  forwardedAt: string | null;
  attempts: number;
}

interface Row {
  event_id: string;
  event_type: string;
  body: string | Buffer;
  headers: string;
  received_at: string;
  target: string | null;
  forward_status: number | null;
  forwarded_at: string | null;
  attempts: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS captured_events (
  event_id TEXT PRIMARY KEY,
  event_type TEXT NOT NULL,
  body TEXT NOT NULL,
  headers TEXT NOT NULL,
  received_at TEXT NOT NULL,
  target TEXT,
  forward_status INTEGER,
  forwarded_at TEXT,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tunnel_cursors (
  source TEXT PRIMARY KEY,
  last_event_id TEXT NOT NULL,
  updated_at TEXT NOT NULL
);`;

const toCaptured = (r: Row): CapturedEvent => ({
  eventId: r.event_id,
  eventType: r.event_type,
  body: r.body,
  headers: JSON.parse(r.headers) as Record<string, string>,
  receivedAt: r.received_at,
  target: r.target,
  forwardStatus: r.forward_status,
  forwardedAt: r.forwarded_at,
  attempts: r.attempts,
});

export const isSuccess = (status: number | null | undefined): boolean =>
  status !== null && status !== undefined && status >= 200 && status < 300;

/**
 * Bodies may hold personal data: openConnection makes a new file mode 0600 (and SQLite its -wal and
 * -shm, which hold the same bodies, alike); files an earlier run left readable are set here too,
 * since the capture log is a developer's file in a working directory, not an operator's.
 */
function keepToOwner(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

/**
 * A local development log, not the system of record (borderd keeps that): WAL with
 * synchronous=NORMAL (a commit is not fsynced; a power cut may lose the last events, never corrupt
 * the file); statements are prepared once per connection by openConnection's cache, so a delivery
 * costs one small write on the hot path.
 */
export class CaptureLog {
  readonly #db: Connection;

  constructor(private readonly path: string) {
    if (path !== ':memory:') keepToOwner(path);
    this.#db = openConnection(path, { synchronous: 'normal', setting: '--capture-db' });
    this.#db.exec(SCHEMA);
  }

  get(eventId: string): CapturedEvent | undefined {
    const row = this.#db.prepare('SELECT * FROM captured_events WHERE event_id = ?').get(eventId) as Row | undefined;
    return row && toCaptured(row);
  }

  /** True when the event was already forwarded with a 2xx: the dedupe check (reads the status only). */
  alreadyDelivered(eventId: string): boolean {
    return isSuccess(
      this.#db.prepare('SELECT forward_status FROM captured_events WHERE event_id = ?').pluck().get(eventId) as number | null | undefined,
    );
  }

  /**
   * Stores a delivery together with its forward result in one write: the relay's hot path. A
   * failed forward is kept (non-2xx status) so `borderd receive replay` can resend it. A Buffer
   * body is stored as a BLOB (SQLite applies no text conversion to one), so a replay sends the
   * same bytes even when they are not UTF-8.
   */
  record(e: {
    eventId: string;
    eventType: string;
    body: string | Buffer;
    headers: Record<string, string>;
    receivedAt: string;
    target: string;
    status: number;
    at: string;
  }): void {
    this.#db
      .prepare(
        `INSERT INTO captured_events (event_id, event_type, body, headers, received_at, target, forward_status, forwarded_at, attempts)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
         ON CONFLICT(event_id) DO UPDATE SET headers = excluded.headers, received_at = excluded.received_at, target = excluded.target,
           forward_status = excluded.forward_status, forwarded_at = excluded.forwarded_at, attempts = attempts + 1`,
      )
      .run(e.eventId, e.eventType, e.body, JSON.stringify(e.headers), e.receivedAt, e.target, e.status, e.at);
  }

  /**
   * A replay to the event's own target: its result is the event's last forward there, which dedupe
   * reads. The target is not a parameter: a replay elsewhere is not recorded (see runReplay).
   */
  recordForward(eventId: string, status: number, at: string): void {
    this.#db
      .prepare('UPDATE captured_events SET forward_status = ?, forwarded_at = ?, attempts = attempts + 1 WHERE event_id = ?')
      .run(status, at, eventId);
  }

  recent(limit: number): CapturedEvent[] {
    return (this.#db.prepare('SELECT * FROM captured_events ORDER BY received_at DESC, event_id DESC LIMIT ?').all(limit) as Row[]).map(
      toCaptured,
    );
  }

  cursor(source: string): string | undefined {
    return this.#db.prepare('SELECT last_event_id FROM tunnel_cursors WHERE source = ?').pluck().get(source) as string | undefined;
  }

  saveCursor(source: string, eventId: string, at: string): void {
    this.#db
      .prepare(
        'INSERT INTO tunnel_cursors (source, last_event_id, updated_at) VALUES (?, ?, ?) ON CONFLICT(source) DO UPDATE SET last_event_id = excluded.last_event_id, updated_at = excluded.updated_at',
      )
      .run(source, eventId, at);
  }

  /**
   * Moves the log's WAL checkpoints to a worker thread (background-checkpoints.ts), for the
   * long-running `borderd receive`: otherwise one delivery in a few hundred waits behind the
   * checkpoint of the write before it. Stop them before close().
   */
  checkpointInBackground(onFailure: (err: Error) => void): BackgroundCheckpoints | undefined {
    if (this.path === ':memory:') return undefined;
    return startBackgroundCheckpoints(this.#db, { dbPath: this.path, synchronous: 'normal', onFailure });
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

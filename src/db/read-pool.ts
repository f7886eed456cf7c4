/**
 * Reads that may run off the main thread: a table of named read-only queries, run on worker threads
 * with their own read-only connections (workerReads) or on the caller's connection (inlineReads),
 * and the errors that cross back.
 *
 * @module db/read-pool
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logging/logger.js';
import { BorderdError, type FieldError } from '../domain/errors.js';
import type { Db } from './database.js';

/**
 * A read that may run off the main thread: a function of a database connection and arguments that
 * survive structured cloning, returning such a value. It must only read: a read worker's
 * connection is read-only.
 */
export type ReadQuery<A, R> = (db: Db, args: A) => Promise<R>;
// The table's queries keep their own argument and result types; `any` here only erases them for storage.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ReadTable = Record<string, ReadQuery<any, any>>;

export interface Reads<T extends ReadTable> {
  run<K extends keyof T & string>(name: K, args: Parameters<T[K]>[1]): ReturnType<T[K]>;
  /** Starts the workers if no read has, and resolves once each has opened the database (at once for inline reads); rejects if one cannot. */
  ready(): Promise<void>;
  /** Lets reads in flight finish, then ends the workers. */
  close(): Promise<void>;
}

/** Reads on the caller's own connection, on the main thread: in-memory databases, tests, `database.readWorkers: 0`. */
export function inlineReads<T extends ReadTable>(db: Db, table: T): Reads<T> {
  return {
    run: (name, args) => table[name]!(db, args) as ReturnType<T[typeof name]>,
    ready: async () => {},
    close: async () => {},
  };
}

/** What crosses from a worker to the main thread: a result, or an error as plain fields. */
export type ReadReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

export interface SerializedError {
  message: string;
  /** A BorderdError's status and code (then shown to the caller), or better-sqlite3's SQLITE_* code. */
  status?: number;
  code?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  stack?: string;
}

export function serializeError(err: unknown): SerializedError {
  const e = err as { message?: unknown; code?: unknown; stack?: unknown };
  const out: SerializedError = { message: String(e?.message ?? err) };
  if (typeof e?.code === 'string') out.code = e.code;
  if (typeof e?.stack === 'string') out.stack = e.stack;
  if (err instanceof BorderdError) {
    out.status = err.status;
    if (err.extra.errors) out.errors = err.extra.errors;
    if (err.extra.headers) out.headers = err.extra.headers;
  }
  return out;
}

/** The worker's error as the main thread throws it: a BorderdError stays one (its problem is shown), anything else a 500 with its code kept (SQLITE_BUSY is a 503). */
export function deserializeError(e: SerializedError): Error {
  if (e.status !== undefined && e.code !== undefined) {
    return new BorderdError(e.status, e.code, e.message, {
      ...(e.errors && { errors: e.errors }),
      ...(e.headers && { headers: e.headers }),
    });
  }
  const err = new Error(`read worker: ${e.message}`) as Error & { code?: string };
  if (e.code !== undefined) err.code = e.code;
  if (e.stack !== undefined) err.stack = `${err.name}: ${err.message}\n(in the read worker) ${e.stack}`;
  return err;
}

export interface WorkerReadsOptions {
  /** The database file (not :memory:, which another connection cannot see). */
  dbPath: string;
  busyTimeoutMs: number;
  /** Worker threads, each with its own read-only connection. */
  size: number;
  /** The module the workers import; it exports the table as `readQueries`. */
  tableModule: URL;
  log: Logger;
  /** The worker script; the compiled read-worker.js beside this file unless a test names another. */
  workerScript?: URL;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  /** Unset until the worker is started (a replacement may wait out a back-off). */
  worker?: Worker;
  /** Set when the worker has exited: reads are sent to its replacement. */
  dead: boolean;
  pending: Map<number, Pending>;
  ready: Promise<void>;
  /** Ends `ready` with an error: the worker exited first, or the pool closed before it started. */
  fail: (err: Error) => void;
  /** Every read sent to this slot, settled or not: close() waits for them. */
  inFlight: Set<Promise<unknown>>;
}

/** A worker that exits before it could open the database is started again after this long, doubling up to the cap while it keeps failing. */
const RESPAWN_MS = 100;
const RESPAWN_CAP_MS = 5000;

/**
 * Reads on worker threads, each with its own read-only connection, so a long query (a benchmark
 * summary over every imported transaction) or many short ones do not hold the main thread: the
 * HTTP layer and the delivery dispatcher keep running beside them. Under WAL a read on another
 * connection sees every committed transaction, and API writes are answered only after their
 * commit, so a caller reads what it wrote.
 *
 * Each read goes to the worker with the fewest reads in flight. A worker that dies fails its reads
 * in flight (a 500 each, logged) and is started again.
 */
export function workerReads<T extends ReadTable>(opts: WorkerReadsOptions): Reads<T> {
  const script = opts.workerScript ?? new URL('./read-worker.js', import.meta.url);
  let nextId = 0;
  let closing = false;
  const slots: Slot[] = [];

  /** Puts a new slot at `index` at once, so reads wait for it, and starts its worker after `delayMs`. */
  const spawn = (index: number, delayMs: number): void => {
    let settle!: { resolve: () => void; reject: (err: Error) => void };
    const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    ready.catch(() => {}); // observed by ready() and by each read; an unobserved rejection must not end the process
    const slot: Slot = { dead: false, pending: new Map(), ready, fail: settle.reject, inFlight: new Set() };
    slots[index] = slot;

    const boot = (): void => {
      if (closing) return;
      const worker = new Worker(script, {
        workerData: { dbPath: opts.dbPath, busyTimeoutMs: opts.busyTimeoutMs, tableModule: opts.tableModule.href },
        // A read worker holds one page of answers at a time. A small young generation keeps its
        // growth under a stream of large identity pages to about half of what V8's default allows,
        // at the same request rate, since the main thread, not the worker, bounds it
        // (docs/scaling.md, "Memory").
        resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 8 },
      });
      slot.worker = worker;
      let started = false;
      worker.on('message', (m: ReadReply | { ready: true } | { ready: false; error: SerializedError }) => {
        if ('ready' in m) {
          started = m.ready;
          if (m.ready) settle.resolve();
          else settle.reject(deserializeError(m.error));
          return;
        }
        const p = slot.pending.get(m.id);
        if (!p) return;
        slot.pending.delete(m.id);
        if (m.ok) p.resolve(m.value);
        else p.reject(deserializeError(m.error));
      });
      worker.on('error', (err) => opts.log.error({ err, worker: index }, 'read worker failed'));
      worker.on('exit', (code) => {
        slot.dead = true;
        settle.reject(new Error(`read worker exited (code ${code}) before it opened the database`));
        for (const p of slot.pending.values()) p.reject(new Error(`read worker exited (code ${code}) during the read`));
        slot.pending.clear();
        if (closing) return;
        opts.log.error({ worker: index, code }, 'read worker exited; starting another');
        // One that ran is replaced at once; one that could not even start is retried ever more slowly.
        spawn(index, started ? 0 : Math.min(RESPAWN_CAP_MS, Math.max(RESPAWN_MS, delayMs * 2)));
      });
    };
    if (delayMs > 0) setTimeout(boot, delayMs).unref();
    else boot();
  };

  // Started at the first read: a daemon whose API never lists identities or asks for a summary does
  // not hold the workers' memory.
  const start = (): void => {
    if (slots.length === 0) for (let i = 0; i < opts.size; i++) spawn(i, 0);
  };

  const pick = (): Slot => slots.reduce((best, s) => (s.inFlight.size < best.inFlight.size ? s : best));

  const send = async (slot: Slot, name: string, args: unknown): Promise<unknown> => {
    await slot.ready;
    if (slot.dead || !slot.worker) throw new Error('read worker exited before the read was sent');
    const id = nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker!.postMessage({ id, name, args });
    });
  };

  return {
    run: (name, args) => {
      if (closing) return Promise.reject(new Error('read workers are closed')) as ReturnType<T[typeof name]>;
      start();
      const slot = pick();
      const read = send(slot, name, args);
      const tracked: Promise<unknown> = read.then(
        () => slot.inFlight.delete(tracked),
        () => slot.inFlight.delete(tracked),
      );
      slot.inFlight.add(tracked);
      return read as ReturnType<T[typeof name]>;
    },
    ready: async () => {
      start();
      await Promise.all(slots.map((s) => s.ready));
    },
    close: async () => {
      closing = true;
      // Reads in flight finish first: the HTTP server has waited for their requests already, so this is short.
      await Promise.all(
        slots.map(async (s) => {
          if (!s.worker) s.fail(new Error('read workers are closed')); // a replacement still waiting out its back-off
          await Promise.all(s.inFlight);
          await s.worker?.terminate();
        }),
      );
    },
  };
}

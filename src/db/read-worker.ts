/**
 * A read worker (src/db/read-pool.ts): opens its own read-only connection, imports the table of
 * reads it may run, says it is ready, then answers each read in the order it arrives.
 *
 * @module db/read-worker
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Db } from './database.js';
import { SqliteDatabase } from './sqlite.js';
import { openConnection } from './sqlite-connection.js';
import { serializeError, type ReadReply, type ReadTable } from './read-pool.js';

interface ReadWorkerData {
  dbPath: string;
  busyTimeoutMs: number;
  tableModule: string;
}

const port = parentPort;
if (!port) throw new Error('read-worker.js runs as a worker thread of borderd serve');
const data = workerData as ReadWorkerData;

async function open(): Promise<{ db: Db; table: ReadTable } | undefined> {
  try {
    const conn = openConnection(data.dbPath, { readonly: true, busyTimeoutMs: data.busyTimeoutMs });
    const db = new SqliteDatabase(conn, { busyTimeoutMs: data.busyTimeoutMs, fsynced: false });
    const table = ((await import(data.tableModule)) as { readQueries: ReadTable }).readQueries;
    port!.postMessage({ ready: true });
    return { db, table };
  } catch (err) {
    // With no listener left the thread ends once this message is out; the pool logs it and retries.
    port!.postMessage({ ready: false, error: serializeError(err) });
    return undefined;
  }
}

const opened = await open();
if (opened) {
  const { db, table } = opened;
  const answer = async (m: { id: number; name: string; args: unknown }): Promise<ReadReply> => {
    try {
      const query = table[m.name];
      if (!query) throw new Error(`no read named ${m.name}`);
      return { id: m.id, ok: true, value: await query(db, m.args) };
    } catch (err) {
      return { id: m.id, ok: false, error: serializeError(err) };
    }
  };
  port.on('message', (m: { id: number; name: string; args: unknown }) => void answer(m).then((reply) => port.postMessage(reply)));
}

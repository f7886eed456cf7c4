/**
 * The `nodes` table: the serve processes sharing the database and when each was last seen.
 *
 * @module store/nodes
 */
import type { Db } from '../db/database.js';

export interface NodeRow {
  id: string;
  host: string;
  pid: number;
  startedAt: number;
  seenAt: number;
}

const COLUMNS = 'id, host, pid, started_at AS "startedAt", seen_at AS "seenAt"';

export async function registerNode(db: Db, node: NodeRow): Promise<void> {
  await db.run(
    'INSERT INTO nodes (id, host, pid, started_at, seen_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at',
    [node.id, node.host, node.pid, node.startedAt, node.seenAt],
  );
}

/** Records a heartbeat; false when the row is gone (another node declared this one dead). */
export async function touchNode(db: Db, id: string, seenAt: number): Promise<boolean> {
  return (await db.run('UPDATE nodes SET seen_at = ? WHERE id = ?', [seenAt, id])) > 0;
}

export async function deleteNode(db: Db, id: string): Promise<void> {
  await db.run('DELETE FROM nodes WHERE id = ?', [id]);
}

export async function listNodes(db: Db): Promise<NodeRow[]> {
  return await db.all<NodeRow>(`SELECT ${COLUMNS} FROM nodes ORDER BY started_at, id`);
}

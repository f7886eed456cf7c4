import Database from 'better-sqlite3';

/**
 * On Node 24.19 and later, better-sqlite3 12 aborts the process when the garbage collector
 * finalizes one of its native objects at the wrong moment (src/db/open.ts, "Native objects kept").
 * borderd itself leaves none for the collector; tests do, by design: they open and close hundreds of
 * connections, call pragma() and iterate() freely. On those Node versions the test processes keep
 * every database, statement and iterator reachable until they exit, so none is ever finalized.
 * Elsewhere this file does nothing.
 */
const major = Number(process.versions.node.split('.')[0]);
if (major >= 24) {
  // A set: a cached statement comes back from every prepare(), and is kept once.
  const kept = new Set<unknown>();
  const keep = <T>(value: T): T => (kept.add(value), value);
  const db = Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['prepare', 'exec', 'pragma', 'transaction', 'close', 'function', 'aggregate', 'table', 'backup', 'serialize']) {
    const original = db[method];
    if (typeof original !== 'function') continue;
    db[method] = function (this: unknown, ...args: unknown[]) {
      keep(this);
      return keep(original.apply(this, args));
    };
  }
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  const iterate = statement.iterate!;
  statement.iterate = function (this: unknown, ...args: unknown[]) {
    return keep(iterate.apply(this, args));
  };
}

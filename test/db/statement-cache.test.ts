import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cacheStatements, openConnection } from '../../src/db/sqlite-connection.js';

describe('prepared statement cache', () => {
  it('compiles each SQL text once per connection', () => {
    const db = openConnection(':memory:');
    const a = db.prepare('SELECT 1 AS one');
    expect(db.prepare('SELECT 1 AS one')).toBe(a);
    expect(db.prepare('SELECT 2 AS two')).not.toBe(a);
    db.close();
  });

  it('gives a shared statement back with its default result mode', () => {
    const db = openConnection(':memory:');
    expect(db.prepare('SELECT 7 AS n').pluck().get()).toBe(7);
    expect(db.prepare('SELECT 7 AS n').get()).toEqual({ n: 7 });
    expect(db.prepare('SELECT 7 AS n').raw().get()).toEqual([7]);
    expect(db.prepare('SELECT 7 AS n').all()).toEqual([{ n: 7 }]);
    db.exec('CREATE TABLE t (x INTEGER)');
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    insert.run(1);
    expect(db.prepare('INSERT INTO t (x) VALUES (?)')).toBe(insert);
    db.close();
  });

  it('resets safeIntegers, and hands a statement busy in iterate() to no second caller', () => {
    const db = openConnection(':memory:');
    db.exec('CREATE TABLE t (x INTEGER)');
    db.prepare('INSERT INTO t (x) VALUES (?)').run(1);
    db.prepare('INSERT INTO t (x) VALUES (?)').run(2);
    expect(db.prepare('SELECT x FROM t ORDER BY x').safeIntegers().get()).toEqual({ x: 1n });
    expect(db.prepare('SELECT x FROM t ORDER BY x').get()).toEqual({ x: 1 });
    const outer = db.prepare('SELECT x FROM t ORDER BY x').iterate();
    expect(outer.next().value).toEqual({ x: 1 });
    // The same SQL while the first is mid-iteration: a fresh statement, not "busy executing".
    expect(db.prepare('SELECT x FROM t ORDER BY x').all()).toEqual([{ x: 1 }, { x: 2 }]);
    expect(outer.next().value).toEqual({ x: 2 });
    expect(outer.next().done).toBe(true);
    db.close();
  });

  it('keeps at most the configured number of statements, dropping the least recently used', () => {
    const db = new Database(':memory:');
    cacheStatements(db, 2);
    const one = db.prepare('SELECT 1');
    const two = db.prepare('SELECT 2');
    expect(db.prepare('SELECT 1')).toBe(one); // SELECT 2 is now the oldest
    db.prepare('SELECT 3');
    expect(db.prepare('SELECT 1')).toBe(one);
    expect(db.prepare('SELECT 2')).not.toBe(two);
    db.close();
  });

  it('does not cache SQL that fails to compile', () => {
    const db = openConnection(':memory:');
    expect(() => db.prepare('SELECT * FROM later')).toThrow(/no such table/);
    db.exec('CREATE TABLE later (x INTEGER)');
    expect(db.prepare('SELECT * FROM later').all()).toEqual([]);
    db.close();
  });
});

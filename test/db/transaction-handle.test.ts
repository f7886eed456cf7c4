/**
 * The transaction skeleton both engines share: savepoints named by their depth, released on
 * success, rolled back alone on failure; errors that end the whole transaction thrown; and a
 * transaction's course (begin, commit or rollback, the handle ended either way). An engine here
 * is a list of the statements it was given.
 */
import { describe, expect, it } from 'vitest';
import type { Db, Dialect } from '../../src/db/database.js';
import { runTransaction, TransactionHandle } from '../../src/db/transaction-handle.js';

/** A transaction that records its skeleton's statements; `ended` makes an error end the whole transaction, `lost` fails every statement. */
class Recording extends TransactionHandle {
  readonly dialect: Dialect = 'sqlite';
  constructor(
    readonly log: string[],
    depth = 0,
    readonly state = { ended: false, lost: false },
  ) {
    super(depth);
  }
  async all<T>(): Promise<T[]> {
    this.assertOpen();
    return [];
  }
  get<T>(): Promise<T | undefined> {
    return Promise.resolve(undefined);
  }
  value<T>(): Promise<T | undefined> {
    return Promise.resolve(undefined);
  }
  column<T>(): Promise<T[]> {
    return Promise.resolve([]);
  }
  async run(sql: unknown): Promise<number> {
    this.assertOpen();
    this.log.push(String(sql));
    return 1;
  }
  exec(): Promise<void> {
    return Promise.resolve();
  }
  protected command(text: string): void {
    if (this.state.lost) throw new Error('connection lost');
    this.log.push(text);
  }
  protected deeper(): Recording {
    return new Recording(this.log, this.depth + 1, this.state);
  }
  protected survives(): boolean {
    return !this.state.ended;
  }
  protected connected(): boolean {
    return true;
  }
}

const fail = (message: string) => () => Promise.reject(new Error(message));

describe('savepoints', () => {
  it('are named by their depth, one after another at a depth, and released when their body succeeds', async () => {
    const tx = new Recording([]);
    const outcome = await tx.savepoint(async (sp) => {
      await sp.run('write a');
      await sp.savepoint((inner) => inner.run('write b'));
      await sp.savepoint((inner) => inner.run('write c'));
      return 'done';
    });
    expect(outcome).toEqual({ ok: true, value: 'done' });
    expect(tx.log).toEqual([
      'SAVEPOINT sp1',
      'write a',
      'SAVEPOINT sp2',
      'write b',
      'RELEASE SAVEPOINT sp2',
      'SAVEPOINT sp2',
      'write c',
      'RELEASE SAVEPOINT sp2',
      'RELEASE SAVEPOINT sp1',
    ]);
  });

  it('roll back and release their own writes alone when their body fails, and return its error', async () => {
    const tx = new Recording([]);
    const outcome = await tx.savepoint(async (sp) => {
      await sp.run('write a');
      throw new Error('bad row');
    });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && (outcome.err as Error).message).toBe('bad row');
    expect(tx.log).toEqual(['SAVEPOINT sp1', 'write a', 'ROLLBACK TO SAVEPOINT sp1', 'RELEASE SAVEPOINT sp1']);
  });

  it('throw an error that ended the whole transaction, and the body’s error when the rollback cannot run', async () => {
    const ended = new Recording([]);
    await expect(
      ended.savepoint(async () => {
        ended.state.ended = true;
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(ended.log).toEqual(['SAVEPOINT sp1']);

    const lost = new Recording([]);
    await expect(
      lost.savepoint(async () => {
        lost.state.lost = true;
        throw new Error('statement failed');
      }),
    ).rejects.toThrow('statement failed');
  });

  it('a transaction inside a transaction is a savepoint whose error is thrown; a snapshot inside one is that one', async () => {
    const tx = new Recording([]);
    await expect(tx.transaction(fail('conflict'))).rejects.toThrow('conflict');
    expect(await tx.tryTransaction(async () => 7)).toEqual({ ok: true, value: 7 });
    expect(await tx.snapshot(async (s) => s)).toBe(tx);
    expect(tx.log).toEqual([
      'SAVEPOINT sp1',
      'ROLLBACK TO SAVEPOINT sp1',
      'RELEASE SAVEPOINT sp1',
      'SAVEPOINT sp1',
      'RELEASE SAVEPOINT sp1',
    ]);
  });

  it('refuse a savepoint handle once its savepoint ended', async () => {
    const tx = new Recording([]);
    let inner: Db | undefined;
    await tx.savepoint(async (sp) => {
      inner = sp;
    });
    expect(inner?.open).toBe(false);
    await expect(inner!.run('late write')).rejects.toThrow('used after its transaction ended');
  });
});

describe('a transaction’s course', () => {
  const steps = (log: string[], failAt?: string) => {
    const step = (name: string) => () => {
      if (name === failAt) throw new Error(`${name} failed`);
      log.push(name);
    };
    return { begin: step('BEGIN'), commit: step('COMMIT'), rollback: step('ROLLBACK') };
  };

  it('begins, runs the body, commits, tells the commit’s time, and ends the handle', async () => {
    const log: string[] = [];
    const tx = new Recording(log);
    const timed: number[] = [];
    expect(
      await runTransaction(
        tx,
        (t) => t.run('write'),
        steps(log),
        (s) => timed.push(s),
      ),
    ).toBe(1);
    expect(log).toEqual(['BEGIN', 'write', 'COMMIT']);
    expect(timed).toHaveLength(1);
    expect(timed[0]).toBeGreaterThanOrEqual(0);
    expect(tx.open).toBe(false);
  });

  it('rolls back when the body or the commit throws, tells no commit, and ends the handle', async () => {
    const log: string[] = [];
    const timed: number[] = [];
    const tx = new Recording(log);
    await expect(runTransaction(tx, fail('body failed'), steps(log), (s) => timed.push(s))).rejects.toThrow('body failed');
    expect(log).toEqual(['BEGIN', 'ROLLBACK']);
    expect(tx.open).toBe(false);

    log.length = 0;
    await expect(runTransaction(new Recording(log), (t) => t.run('write'), steps(log, 'COMMIT'))).rejects.toThrow('COMMIT failed');
    expect(log).toEqual(['BEGIN', 'write', 'ROLLBACK']);
    expect(timed).toEqual([]);
  });
});

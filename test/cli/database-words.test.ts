import { describe, expect, it } from 'vitest';
import { databaseWords } from '../../src/cli/context.js';

describe('the database options a printed hint repeats', () => {
  it('repeats --db, --config and a database URL without credentials as they were given', () => {
    expect(databaseWords({ config: './my config.yaml', db: './data/b.db' })).toEqual([`--config './my config.yaml'`, '--db ./data/b.db']);
    expect(databaseWords({ databaseUrl: 'postgres://borderd@127.0.0.1:5432/borderd' })).toEqual([
      '--database-url postgres://borderd@127.0.0.1:5432/borderd',
    ]);
  });

  it('never prints a password or a secret parameter of the database URL: the hint names the environment variable', () => {
    for (const url of ['postgres://borderd:hunter2@127.0.0.1/borderd', 'postgres://borderd@127.0.0.1/borderd?sslpassword=hunter2']) {
      const words = databaseWords({ databaseUrl: url }).join(' ');
      expect(words).not.toContain('hunter2');
      expect(words).toBe('--database-url "$BORDERD_DATABASE_URL"');
    }
  });
});

/**
 * The first screen of a start on a terminal: the migrations in one line, health checks kept out of
 * the info log, and a banner whose advice runs as printed after `npm ci`. Needs `npm run build`.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { borderdCommand } from '../../src/cli/command-name.js';
import { listMigrations } from '../../src/db/migrate.js';
import { PACKAGE_ROOT } from '../../src/version.js';
import { makeApi, makeContext, tempDir } from '../support/context.js';
import { startBorderd } from '../support/process.js';

const INFO = 30;

describe('the first screen', () => {
  it('says the migrations of a new database in one info line, each one at debug', async () => {
    const ctx = await makeContext();
    const migrations = listMigrations(ctx.db.dialect);
    const count = migrations.length;
    const info = ctx.logs.lines.filter((l) => l.level === INFO && String(l.msg).includes('migration'));
    expect(info.map((l) => l.msg)).toEqual([`${count} migrations applied (schema version ${migrations.at(-1)!.version})`]);
    expect(ctx.logs.lines.filter((l) => l.msg === 'migration applied')).toHaveLength(count);
  });

  it('logs health checks at debug and other requests at info', async () => {
    const ctx = await makeContext();
    const api = makeApi(ctx);
    expect((await api.http.get('/healthz')).status).toBe(200);
    expect((await api.http.get('/readyz')).status).toBe(200);
    expect((await api.http.get('/v1/nothing-here')).status).toBe(404);
    const requests = ctx.logs.lines.filter((l) => l.msg === 'request').map((l) => [l.route, l.level]);
    expect(requests).toEqual([
      ['/healthz', 20],
      ['/readyz', 20],
      ['(unmatched)', INFO],
    ]);
  });

  it('names borderd as the reader can run it: on the PATH, npx in the package folder, else node and the entry', () => {
    const bin = tempDir();
    writeFileSync(join(bin, 'borderd'), '#!/bin/sh\n');
    chmodSync(join(bin, 'borderd'), 0o755);
    expect(borderdCommand({ PATH: bin }, tempDir())).toBe('borderd');
    expect(borderdCommand({ PATH: tempDir() }, PACKAGE_ROOT)).toBe('npx borderd');
    expect(borderdCommand({ PATH: tempDir() }, tempDir())).toBe(`node ${join(PACKAGE_ROOT, 'bin', 'borderd.js')}`);
  });

  it("a first start's banner gives a token command that runs where the daemon was started", async () => {
    const daemon = await startBorderd({ env: { PATH: tempDir() } });
    const { clientId, clientSecret } = daemon.credentials!;
    expect(daemon.output()).toContain(
      `  or, in the shell you work in: export BORDERD_CLIENT_ID=${clientId} BORDERD_CLIENT_SECRET=${clientSecret}\n`,
    );
    expect(daemon.output()).toMatch(/\n {2}then: (?:npx borderd|node \S+bin\/borderd\.js) token --url http:\/\/127\.0\.0\.1:\d+\n/);
    await daemon.stop();
  });
});

/**
 * `npm run postgres`: a real embedded PostgreSQL, its URL printed to paste, borderd migrating and
 * using it, and everything stopped on SIGTERM. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { ROOT, runCli } from '../support/process.js';

describe('npm run postgres', () => {
  it('prints a URL borderd runs on, and stops the server on SIGTERM', async () => {
    const proc = spawn(process.execPath, [join(ROOT, 'dist', 'bench', 'local-postgres.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        proc.stdout.on('data', () => {
          const m = /^export BORDERD_DATABASE_URL=(\S+)$/m.exec(out);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`stopped (exit ${code}) before printing a URL:\n${out}`)));
      });
      expect(out).toContain(`npm start -- --database-url ${url}`);
      const env = { BORDERD_DATA_DIR: tempDir() };
      expect((await runCli(['migrate', '--database-url', url], env)).code).toBe(0);
      const org = await runCli(['orgs', 'create', '--name', 'Acme', '--database-url', url, '--print', 'name'], env);
      expect([org.code, org.stdout]).toEqual([0, 'Acme\n']);
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
      const client = new pg.Client({ connectionString: url });
      await expect(client.connect()).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });
});

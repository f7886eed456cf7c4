import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_GROUPS } from '../../src/cli/command-groups.js';
import { tempDir } from '../support/context.js';
import { BIN, runCli, ROOT } from '../support/process.js';

const PRELOAD = pathToFileURL(join(ROOT, 'test', 'support', 'loaded-packages.mjs')).href;

/** Runs one command and answers the packages its process loaded. */
async function packagesLoadedBy(args: string[]): Promise<string[]> {
  const file = join(tempDir(), 'loaded.txt');
  const result = await runCli(args, { NODE_OPTIONS: `--import=${PRELOAD}`, BORDERD_TEST_LOADED_PACKAGES: file });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return readFileSync(file, 'utf8').split('\n');
}

/** Dependencies of the daemon, the database engines and the HTTP client, none of which a listing needs. */
const HEAVY = ['express', 'undici', 'prom-client', 'pg', 'better-sqlite3'];

describe('borderd command groups', () => {
  it('each group loads the module that declares it under the same name and description', async () => {
    for (const [name, group] of Object.entries(COMMAND_GROUPS)) {
      const command = await group.load();
      expect(command.command, name).toBe(group.command);
      expect(command.describe, name).toBe(group.describe);
      expect(command.builder, name).toBeTypeOf('function');
    }
  });

  it('--version and --help load none of the groups’ dependencies', async () => {
    for (const args of [['--version'], ['--help']]) {
      const loaded = await packagesLoadedBy(args);
      expect(loaded).toContain('yargs');
      for (const name of HEAVY) expect(loaded, `${args[0]} loads ${name}`).not.toContain(name);
    }
  });

  it('a database command loads its engine but not the daemon’s HTTP server or client', async () => {
    const db = join(tempDir(), 'groups.db');
    expect((await runCli(['migrate', '--db', db])).code).toBe(0);
    const loaded = await packagesLoadedBy(['orgs', 'list', '--db', db]);
    expect(loaded).toContain('better-sqlite3');
    for (const name of ['express', 'undici', 'prom-client']) expect(loaded, `orgs list loads ${name}`).not.toContain(name);
  });

  it('token --help opens no database', async () => {
    const loaded = await packagesLoadedBy(['token', '--help']);
    for (const name of ['better-sqlite3', 'pg', 'express']) expect(loaded, `token --help loads ${name}`).not.toContain(name);
  });

  it('runs the command typed when an option before it has another group as its value', () => {
    const cwd = tempDir();
    execFileSync(process.execPath, [BIN, 'migrate', '--db', 'serve'], { cwd });
    execFileSync(process.execPath, [BIN, 'orgs', 'create', '--name', 'Acme', '--db', 'serve'], { cwd });
    const listed = execFileSync(process.execPath, [BIN, '--db', 'serve', 'orgs', 'list', '--json'], { cwd, encoding: 'utf8' });
    expect((JSON.parse(listed) as { name: string }[]).map((o) => o.name)).toEqual(['Acme']);
  });
});

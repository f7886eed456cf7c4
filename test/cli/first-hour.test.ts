import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/process.js';
import { tempDir } from '../support/context.js';
import { createTestSigner } from '../../src/verify/index.js';
import { unreachableBase } from '../receiver/support.js';

// What a new user runs into in the first hour: each mistake is one line on stderr and exit 2,
// and leaves nothing behind.

const oneLine = (r: { stderr: string }) => r.stderr.trim().split('\n');

describe('paths that cannot hold a database', () => {
  it.each([
    [['serve', '--db', '/proc/nope/borderd.db', '--port', '0']],
    [['migrate', '--db', '/proc/nope/borderd.db']],
    [['receive', '--forward-to', 'http://127.0.0.1:9/', '--port', '0', '--public-key', '{key}', '--capture-db', '/proc/nope/capture.db']],
  ])('%j: one line naming the path, exit 2, no hang', async (args) => {
    const key = join(tempDir(), 'public.pem');
    writeFileSync(key, createTestSigner().publicKey);
    const r = await runCli(args.map((a) => (a === '{key}' ? key : a)));
    expect(r.code).toBe(2);
    expect(oneLine(r)).toHaveLength(1);
    expect(r.stderr).toMatch(/^borderd: .*\/proc\/nope/);
  });
});

describe('a database that does not exist', () => {
  it('is refused by every command but serve and migrate, which create nothing then', async () => {
    const dir = join(tempDir(), 'typo');
    const db = join(dir, 'x.db');
    for (const args of [
      ['orgs', 'list'],
      ['orgs', 'create', '--name', 'Acme'],
      ['outbox', 'status'],
    ]) {
      const r = await runCli([...args, '--db', db]);
      expect([r.code, oneLine(r)]).toEqual([2, [expect.stringContaining(`no database at ${db}`)]]);
    }
    expect(existsSync(dir)).toBe(false);
    const made = await runCli(['migrate', '--db', db, '--json']);
    expect(made.code, made.stderr).toBe(0);
    expect((await runCli(['orgs', 'list', '--db', db, '--json'])).stdout.trim()).toBe('[]');
  });
});

describe('times on the command line', () => {
  it('take ISO 8601 or a duration ago everywhere; anything else is one line and exit 2', async () => {
    const db = join(tempDir(), 'times.db');
    expect((await runCli(['migrate', '--db', db])).code).toBe(0);
    for (const args of [
      ['webhooks', 'enable', 'whk_nope', '--replay-since'],
      ['outbox', 'replay', '--webhook', 'whk_nope', '--since'],
    ]) {
      for (const time of ['10m', '1h', '2026-01-01T00:00:00Z']) {
        const r = await runCli([...args, time, '--db', db]);
        // The time is taken: what fails is the unknown webhook.
        expect([r.code, r.stderr], time).toEqual([1, expect.stringContaining('was not found')]);
      }
      const bad = await runCli([...args, 'yesterday', '--db', db]);
      expect([bad.code, oneLine(bad)]).toEqual([2, [expect.stringMatching(/^borderd: --(replay-)?since yesterday: give /)]]);
    }
  });
});

describe('messages', () => {
  it('suggests the command nearest to a mistyped one, in one line, exit 2', async () => {
    const org = await runCli(['org', 'list']);
    expect([org.code, oneLine(org)]).toEqual([2, ['borderd: unknown command org: did you mean orgs? (borderd --help lists them)']]);
    const sub = await runCli(['orgs', 'lst']);
    expect([sub.code, oneLine(sub)]).toEqual([2, [expect.stringContaining('did you mean list?')]]);
  });

  it('prints a shell completion script whose completions name the commands', async () => {
    const script = await runCli(['completion']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('borderd --get-yargs-completions');
    expect(script.stdout).toMatch(/complete .*borderd/);
    const words = await runCli(['--get-yargs-completions', 'borderd', 'out']);
    expect(words.stdout.split('\n')).toEqual(expect.arrayContaining(['orgs', 'outbox', 'receive']));
    const sub = await runCli(['--get-yargs-completions', 'borderd', 'outbox', '']);
    expect(sub.stdout.split('\n')).toEqual(expect.arrayContaining(['list', 'replay']));
  });
});

describe('values for the shell', () => {
  it('--print names the fields a result has when asked for another; token says what it needs and where it could not connect', async () => {
    const db = join(tempDir(), 'print.db');
    expect((await runCli(['migrate', '--db', db])).code).toBe(0);
    const id = await runCli(['orgs', 'create', '--name', 'Acme', '--print', 'id', '--db', db]);
    expect(id.stdout).toMatch(/^org_\w+\n$/);
    const nope = await runCli(['orgs', 'list', '--print', 'nope', '--db', db]);
    expect([nope.code, oneLine(nope)]).toEqual([2, ['borderd: --print nope: the result has no field nope; it has id, name, createdAt']]);
    const exported = await runCli(['clients', 'create', '--org', id.stdout.trim(), '--export', '--db', db]);
    expect(exported.stdout).toMatch(/^export BORDERD_CLIENT_ID=cli_\w+ BORDERD_CLIENT_SECRET=bsk_[\w-]+\n$/);

    const env = { BORDERD_CLIENT_ID: '', BORDERD_CLIENT_SECRET: '', BORDERD_URL: '' };
    const missing = await runCli(['token'], env);
    expect([missing.code, oneLine(missing)]).toEqual([2, [expect.stringContaining('token needs --client-id and --client-secret')]]);
    const base = await unreachableBase();
    const refused = await runCli(['token', '--url', base, '--client-id', 'cli_x', '--client-secret', 'bsk_x'], env);
    expect([refused.code, oneLine(refused)]).toEqual([1, [expect.stringContaining(`connection refused to ${base}/`)]]);
  });
});

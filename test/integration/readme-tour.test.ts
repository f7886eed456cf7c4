import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../support/context.js';
import { ROOT, runCli, startBorderd } from '../support/process.js';
import { unreachableBase } from '../receiver/support.js';

// The README's first tour, pasted as it stands: terminal 1's daemon (here the same `borderd serve`
// that `npm start` runs, on a free port) and terminal 2's block run by bash, word for word but for
// the ports. Its working directory is a copy of the repository's layout (bin/ and examples/ as
// links), so the tour's `$(pwd)/data/borderd.db` is the test's own.

function tourBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('## A first tour'), readme.indexOf('\n## ', readme.indexOf('## A first tour') + 1));
  return [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const portOf = async () => new URL(await unreachableBase()).port;

describe('the README tour', () => {
  it('is two blocks: the daemon, then commands that run as pasted and get both events to the app', async () => {
    const blocks = tourBlocks();
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('npm start');

    const repo = tempDir('borderd-tour-');
    symlinkSync(join(ROOT, 'bin'), join(repo, 'bin'));
    symlinkSync(join(ROOT, 'examples'), join(repo, 'examples'));
    const daemon = await startBorderd({ dataDir: join(repo, 'data') });
    // The first start names the organization it made, in one line.
    const [orgLine] = /^borderd: first start .*created organization (org_\w+) .*$/m.exec(daemon.output()) ?? [];
    expect(orgLine).toBeDefined();

    const [appPort, receivePort] = [await portOf(), await portOf()];
    const script = blocks[1]!.replaceAll('http://127.0.0.1:8080', daemon.url).replaceAll('3000', appPort).replaceAll('4242', receivePort);
    // The banner's export line, pasted first as the tour says.
    const exported = /^ {2}or, in the shell you work in: export BORDERD_CLIENT_ID=(\S+) BORDERD_CLIENT_SECRET=(\S+)$/m.exec(
      daemon.output(),
    );
    expect(exported, daemon.output()).not.toBeNull();
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BORDERD_'))),
      BORDERD_CLIENT_ID: exported![1]!,
      BORDERD_CLIENT_SECRET: exported![2]!,
    };
    // A script's bash expands aliases only when asked; an interactive shell always does.
    const shell = spawn('bash', ['-e', '-c', `shopt -s expand_aliases\n${script}`], {
      cwd: repo,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    shell.stdout.on('data', (d: Buffer) => (out += d.toString()));
    shell.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const code = await new Promise<number | null>((resolve) => shell.on('exit', resolve));
      expect(code, out).toBe(0);
      // The app (behind the receiver) prints both events of the transaction, verified twice.
      await vi.waitFor(
        () => {
          expect(out).toMatch(/Transaction_Created evt_\S+: transaction txn_\S+ is Submitted/);
          expect(out).toMatch(/Transaction_Updated evt_\S+: transaction txn_\S+ is Failed/);
        },
        { timeout: 30_000, interval: 200 },
      );
      expect(out).not.toMatch(/error|refused|\[5\d\d\]/i);
      const list = await runCli(['outbox', 'list', '--db', daemon.dbPath, '--json']);
      const page = JSON.parse(list.stdout) as { data: { state: string }[] };
      expect(page.data.map((d) => d.state)).toEqual(['delivered', 'delivered']);
      // The tour used the first start's client and made none.
      const org = /created organization (org_\w+)/.exec(orgLine!)![1]!;
      const clients = await runCli(['clients', 'list', '--org', org, '--db', daemon.dbPath, '--print', 'id']);
      expect(clients.stdout.trim().split('\n')).toEqual([exported![1]]);
    } finally {
      // The tour's background jobs (the app and the receiver) are in the shell's process group.
      try {
        process.kill(-shell.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      await daemon.stop();
    }
  });
});

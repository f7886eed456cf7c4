/**
 * `npm test` on a fresh machine: the README's first screen shows the two commands and CI runs the
 * same ones; scripts/test.mjs installs chromium and promtool where it can and, where it cannot,
 * says what to run, runs the rest and names what it skipped. The machines without the tools are
 * simulated by a PATH that holds node alone (and a stand-in apt-get).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { ROOT } from '../support/process.js';

/** What a terminal of 24 lines shows of the README. */
const firstScreen = () => readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').slice(0, 24).join('\n');

/** The commands of a shell script, comments and blank lines left out. */
const commands = (script: string) =>
  script
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

/** A PATH of node alone, and whatever stand-ins `tools` names (name → shell script). */
function bareBin(tools: Record<string, string> = {}): string {
  const bin = tempDir('borderd-bin-');
  symlinkSync(process.execPath, join(bin, 'node'));
  for (const [name, body] of Object.entries(tools)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

/** scripts/test.mjs on one small suite with PATH=bin. */
function npmTest(bin: string) {
  const run = spawnSync(process.execPath, ['scripts/test.mjs', '--project', 'sqlite', 'test/domain/ids.test.ts'], {
    cwd: ROOT,
    env: { ...process.env, PATH: bin },
    encoding: 'utf8',
  });
  const lines = run.stdout.split('\n').filter((l) => l.startsWith('npm test:'));
  return { code: run.status, lines, stdout: run.stdout };
}

describe('the README and CI', () => {
  it("the README's first screen starts with the two commands, and .ci/run runs its test command and installs nothing itself", () => {
    const screen = firstScreen();
    const block = /```sh\n([\s\S]*?)```/.exec(screen);
    expect(block, 'a sh block on the first screen').not.toBeNull();
    // Nothing to run before the block: only the title and one sentence.
    expect(commands(screen.slice(0, block!.index)).filter((l) => !l.startsWith('A ')).length).toBe(0);
    const shown = commands(block![1]!).map((l) => l.replace(/\s+#.*$/, ''));
    expect(shown).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    const ci = commands(readFileSync(join(ROOT, '.ci', 'run'), 'utf8'));
    expect(ci).toContain(shown[1]);
    expect(ci.filter((l) => /apt-get|chromium|promtool|vitest|npm (?:run )?test/.test(l))).toEqual([shown[1]]);
  });
});

describe('npm test without chromium and promtool', () => {
  it('with no apt-get: one line saying what to run, the other suites run, and the summary names what was skipped', () => {
    const { code, lines, stdout } = npmTest(bareBin());
    expect(code).toBe(0);
    expect(stdout).toContain('test/domain/ids.test.ts');
    expect(lines).toEqual([
      'npm test: chromium and prometheus missing (no apt-get): run `apt-get install -y chromium prometheus` to run every suite',
      'npm test: skipped test/console/console.test.ts: chromium is not installed (apt-get install -y chromium)',
      'npm test: skipped the promtool checks in test/metrics/metrics.test.ts and test/examples/grafana.test.ts: promtool is not installed (apt-get install -y prometheus)',
    ]);
  });

  it('leaves the console suite out when chromium is missing, even when it is named', () => {
    const run = spawnSync(
      process.execPath,
      ['scripts/test.mjs', '--project', 'sqlite', 'test/console/console.test.ts', 'test/domain/ids.test.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, PATH: bareBin() },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('test/domain/ids.test.ts');
    expect(run.stdout).not.toContain('|sqlite| test/console/console.test.ts');
  });

  it('with apt-get: as root it installs both packages once with one line saying why; otherwise it says to use sudo', () => {
    const bin = tempDir('borderd-apt-');
    const log = join(bin, 'apt-get.log');
    const { code, lines } = npmTest(bareBin({ 'apt-get': `echo "$@" >> ${log}` }));
    expect(code).toBe(0);
    if (process.getuid?.() === 0) {
      expect(lines[0]).toBe(
        "npm test: installing chromium (the console's browser tests) and prometheus (promtool checks of the metrics and alert rules) from Debian's packages",
      );
      expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
        'update -qq',
        'install -y -qq --no-install-recommends chromium prometheus',
      ]);
      // The stand-in installed nothing: the run says so and still runs the rest.
      expect(lines[1]).toBe(
        'npm test: apt-get install -y chromium prometheus did not install chromium and prometheus; run it by hand to run every suite',
      );
    } else {
      expect(lines[0]).toBe(
        'npm test: chromium and prometheus missing (not root): run `sudo apt-get install -y chromium prometheus` to run every suite',
      );
    }
    expect(lines.slice(-2).map((l) => l.slice(0, 22))).toEqual(['npm test: skipped test', 'npm test: skipped the ']);
  });
});

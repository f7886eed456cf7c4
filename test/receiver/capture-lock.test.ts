import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { BIN, runCli } from '../support/process.js';
import { createTestSigner } from '../../src/verify/index.js';
import { startLocalApp, startNodeProcess, startReceive } from './support.js';

// Two receivers on one capture log would share its dedupe: one forwards an event, the other then
// answers borderd "duplicate" and never forwards it to its own app. The second one is refused.

const LISTENING = /listening on (http:\/\/\S+),/;

async function setup() {
  const dir = tempDir('borderd-capture-lock-');
  const key = join(dir, 'public.pem');
  writeFileSync(key, createTestSigner().publicKey);
  const app = await startLocalApp();
  const args = (captureDb?: string) => [
    '--forward-to',
    app.url,
    '--port',
    '0',
    '--public-key',
    key,
    ...(captureDb ? ['--capture-db', captureDb] : []),
  ];
  return { dir, args };
}

describe('one receiver per capture log', () => {
  it('refuses a second receive on the same --capture-db in one line, exit 2; the log is free again after kill -9', async () => {
    const { dir, args } = await setup();
    const captureDb = join(dir, 'capture.db');
    const first = await startReceive(args(captureDb), LISTENING);

    const second = await runCli(['receive', ...args(captureDb)]);
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^borderd: .*capture\.db.*--capture-db/)]);
    // A different capture log is another receiver's own: it starts.
    const other = await startReceive(args(join(dir, 'other.db')), LISTENING);
    await other.stop();

    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
    const third = await startReceive(args(captureDb), LISTENING);
    expect(await third.stop()).toBe(0);
    // A clean stop leaves only the capture log.
    expect(existsSync(captureDb)).toBe(true);
    expect(existsSync(`${captureDb}-lock`)).toBe(false);
    expect(existsSync(`${captureDb}-wal`)).toBe(false);
  });

  it('holds for the default capture log in the working directory', async () => {
    const { dir, args } = await setup();
    const cwd = join(dir, 'project');
    mkdirSync(cwd);
    const inCwd = (extra: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const proc = spawn(process.execPath, [BIN, 'receive', ...extra], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        proc.on('exit', (code) => resolve({ code, stderr }));
      });
    const first = await startNodeProcess([BIN, 'receive', ...args(join(cwd, 'borderd-receive.db'))], LISTENING);
    const second = await inCwd(args());
    expect([second.code, second.stderr]).toEqual([2, expect.stringMatching(/^borderd: .*borderd-receive\.db.*--capture-db/)]);
    await first.stop();
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { daemonToken } from '../support/daemon-token.js';
import { runCli, startBorderd } from '../support/process.js';
import { startReceiver, type Received } from '../delivery/receiver.js';
import { startLocalApp, startReceive } from './support.js';

const ADMIN = 'sw-receive-admin-0123456789abcdefgh';

/**
 * A module that sets a process's clock `ms` ahead: `borderd receive` started with it sees a
 * delivery as if it arrived that much later, as a captured delivery replayed later does.
 */
function clockAhead(ms: number): string {
  const file = join(tempDir('borderd-clock-'), 'clock-ahead.mjs');
  writeFileSync(file, `const real = Date.now;\nDate.now = () => real() + ${ms};\n`);
  return `--import=${pathToFileURL(file).href}`;
}

interface RealDelivery {
  delivery: Received;
  secret: string;
  publicKey: string;
}

/**
 * A real delivery of a real `borderd serve`, captured as it arrived, and its webhook's secret: made
 * by the first test that asks (the daemon, its data and the capture end with that test) and then
 * only read, so the file starts one daemon rather than one per test.
 */
let captured: Promise<RealDelivery> | undefined;
const realDelivery = (): Promise<RealDelivery> => (captured ??= captureRealDelivery());

async function captureRealDelivery(): Promise<RealDelivery> {
  const daemon = await startBorderd({ env: { BORDERD_ADMIN_TOKEN: ADMIN, BORDERD_DELIVERY_POLL_INTERVAL_MS: '100' } });
  const { accessToken, orgId } = await daemonToken(daemon);
  const capture = await startReceiver();
  const hook = await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: capture.url }),
  });
  const { secret } = (await hook.json()) as { secret: string };
  const created = await fetch(`${daemon.url}/admin/v1/transactions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ orgId, type: 'Withdrawal', amount: '10.00', currency: 'USDC', network: 'ETHEREUM' }),
  });
  expect(created.status).toBe(201);
  await capture.waitFor(1);
  const key = await fetch(`${daemon.url}/v1/notifications/webhooks/settings/public-key`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const { publicKey } = (await key.json()) as { publicKey: string };
  expect((await daemon.stop()).code).toBe(0);
  return { delivery: capture.received[0]!, secret, publicKey };
}

/** Sends a captured delivery again, byte for byte, with its headers (those of the HTTP exchange aside). */
async function resend(url: string, d: Received, drop: (name: string) => boolean = () => false): Promise<Response> {
  const headers = Object.fromEntries(
    Object.entries(d.headers).filter(
      ([k]) => (k.startsWith('x-') || k.startsWith('webhook-') || k === 'content-type' || k === 'user-agent') && !drop(k),
    ),
  ) as Record<string, string>;
  return fetch(`${url}/webhooks`, { method: 'POST', headers, body: d.body });
}

describe('borderd receive with Standard Webhooks', () => {
  it('forwards a real delivery in the window and refuses it replayed after the window (401 timestamp_too_old)', async () => {
    const { delivery, secret } = await realDelivery();
    const app = await startLocalApp();
    const args = (capture: string) => ['--forward-to', app.url, '--port', '0', '--capture-db', join(tempDir(), capture)];

    const now = await startReceive(args('now.db'), /listening on (http:\/\/[0-9.:]+)/, { BORDERD_WEBHOOK_SECRET: secret });
    const fresh = await resend(now.url!, delivery);
    expect(fresh.status, await fresh.clone().text()).toBe(200);
    await app.waitFor(1);
    await now.stop();

    const later = await startReceive(['--webhook-secret', secret, ...args('later.db')], /listening on (http:\/\/[0-9.:]+)/, {
      NODE_OPTIONS: clockAhead(10 * 60_000),
    });
    const replayed = await resend(later.url!, delivery);
    expect(replayed.status).toBe(401);
    const problem = (await replayed.json()) as { code: string; detail: string };
    expect(problem.code).toBe('timestamp_too_old');
    expect(problem.detail).toMatch(/60\d s behind this machine's clock, more than the 300 s tolerance/);
    // A wider window takes it: the skew is what the message said.
    const wide = await startReceive(
      ['--webhook-secret', secret, '--tolerance', '900', ...args('wide.db')],
      /listening on (http:\/\/[0-9.:]+)/,
      {
        NODE_OPTIONS: clockAhead(10 * 60_000),
      },
    );
    expect((await resend(wide.url!, delivery)).status).toBe(200);
    await later.stop();
    await wide.stop();
    expect(app.received).toHaveLength(2);
    expect(later.output()).toContain('timestamp_too_old');
  });

  it('with --require-standard-webhooks refuses a delivery without the headers; bad flags exit 2 with one line', async () => {
    const { delivery, secret } = await realDelivery();
    const app = await startLocalApp();
    const strict = await startReceive(
      [
        '--forward-to',
        app.url,
        '--port',
        '0',
        '--webhook-secret',
        secret,
        '--require-standard-webhooks',
        '--capture-db',
        join(tempDir(), 'c.db'),
      ],
      /listening on (http:\/\/[0-9.:]+)/,
    );
    const stripped = await resend(strict.url!, delivery, (k) => k.startsWith('webhook-'));
    expect(stripped.status).toBe(401);
    expect(((await stripped.json()) as { code: string }).code).toBe('missing_header');
    expect((await resend(strict.url!, delivery)).status).toBe(200);
    await strict.stop();
    expect(app.received).toHaveLength(1);

    const contradiction = await runCli([
      'receive',
      '--forward-to',
      app.url,
      '--webhook-secret',
      secret,
      '--require-standard-webhooks',
      '--allow-x-signature-only',
    ]);
    expect(contradiction.code).toBe(2);
    expect(contradiction.stderr.trim().split('\n')).toHaveLength(1);
    expect(contradiction.stderr).toContain('contradict');
    const noKey = await runCli(['receive', '--forward-to', app.url, '--webhook-secret', secret, '--allow-x-signature-only']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--allow-x-signature-only needs --public-key');
    const nanTolerance = await runCli(['receive', '--forward-to', app.url, '--webhook-secret', secret, '--tolerance', 'NaN']);
    expect(nanTolerance.code).toBe(2);
    expect(nanTolerance.stderr.trim().split('\n')).toHaveLength(1);
    expect(nanTolerance.stderr).toContain('--tolerance must be a whole number');
    const noSecret = await runCli(['receive', '--forward-to', app.url, '--require-standard-webhooks'], { BORDERD_WEBHOOK_SECRET: '' });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr.trim().split('\n')).toHaveLength(1);
    expect(noSecret.stderr).toContain('--require-standard-webhooks needs --webhook-secret');
    const badSecret = await runCli(['receive', '--forward-to', app.url, '--webhook-secret', 'whsec_!!']);
    expect(badSecret.code).toBe(2);
    expect(badSecret.stderr).toContain('--webhook-secret: the webhook secret is not whsec_');
    expect(badSecret.stderr).not.toContain('!!');
  });

  it('with the secret and the public key, refuses a replayed delivery with its webhook-* headers stripped; --allow-x-signature-only takes it', async () => {
    const { delivery, secret, publicKey } = await realDelivery();
    const keyFile = join(tempDir(), 'public.pem');
    writeFileSync(keyFile, publicKey);
    const app = await startLocalApp();
    const args = (capture: string, ...more: string[]) => [
      '--forward-to',
      app.url,
      '--port',
      '0',
      '--public-key',
      keyFile,
      '--webhook-secret',
      secret,
      ...more,
      '--capture-db',
      join(tempDir(), capture),
    ];
    const later = await startReceive(args('later.db'), /listening on (http:\/\/[0-9.:]+)/, { NODE_OPTIONS: clockAhead(10 * 60_000) });
    const stripped = await resend(later.url!, delivery, (k) => k.startsWith('webhook-'));
    expect(stripped.status).toBe(401);
    expect(((await stripped.json()) as { code: string }).code).toBe('missing_header');
    expect(((await (await resend(later.url!, delivery)).json()) as { code: string }).code).toBe('timestamp_too_old');
    await later.stop();
    expect(app.received).toHaveLength(0);

    const migrating = await startReceive(args('migrating.db', '--allow-x-signature-only'), /listening on (http:\/\/[0-9.:]+)/, {
      NODE_OPTIONS: clockAhead(10 * 60_000),
    });
    expect((await resend(migrating.url!, delivery, (k) => k.startsWith('webhook-'))).status).toBe(200);
    await app.waitFor(1);
    // With its headers, the same delivery is still held to the window.
    expect(((await (await resend(migrating.url!, delivery)).json()) as { code: string }).code).toBe('timestamp_too_old');
    await migrating.stop();
    expect(app.received).toHaveLength(1);
  });
});

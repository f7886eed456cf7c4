import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSigningKey } from '../../src/delivery/signing-keys.js';
import { createTestSigner, type TransactionEventData } from '../../src/verify/index.js';
import { tempDir } from '../support/context.js';
import { ROOT, startBorderd } from '../support/process.js';
import { daemonCredentials, openDaemonDb, startNodeProcess, startReceive } from '../receiver/support.js';

const data: TransactionEventData = {
  id: 'txn_7',
  type: 'Deposit',
  status: 'Completed',
  previousStatus: 'Processing',
  amount: '250.00',
  currency: 'USDC',
  network: 'ETHEREUM',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const example = (name: string, file: string) => join(ROOT, 'examples', name, file);
const READY = /listening on (http:\/\/127\.0\.0\.1:\d+\S*)/;

function keyFile(pem: string): string {
  const file = join(tempDir('borderd-example-'), 'public.pem');
  writeFileSync(file, pem);
  return file;
}

describe('examples', () => {
  it('express-receiver verifies with createWebhookMiddleware and refuses a forgery', async () => {
    const signer = createTestSigner();
    const app = await startNodeProcess([example('express-receiver', 'server.mjs')], READY, {
      PUBLIC_KEY_FILE: keyFile(signer.publicKey),
      PORT: '0',
    });
    const d = signer.signEvent('Transaction_Updated', data);
    const ok = await fetch(app.url!, { method: 'POST', body: d.body, headers: d.headers });
    expect(ok.status).toBe(200);
    expect((await ok.json()) as Record<string, unknown>).toEqual({ received: d.event.id, type: 'Transaction_Updated' });
    await app.waitForOutput(new RegExp(`Transaction_Updated ${d.event.id}: transaction txn_7 is Completed`));
    const forged = createTestSigner().signEvent('Transaction_Updated', data);
    const bad = await fetch(app.url!, { method: 'POST', body: forged.body, headers: forged.headers });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Record<string, unknown>).code).toBe('no_key_matches');
  });

  it('plain-node-verify answers 200 for a signed event and 400 with the code for a tampered one', async () => {
    const signer = createTestSigner();
    const app = await startNodeProcess([example('plain-node-verify', 'server.mjs')], READY, {
      PUBLIC_KEY_FILE: keyFile(signer.publicKey),
      PORT: '0',
    });
    const d = signer.signEvent('Transaction_Created', data);
    const ok = await fetch(app.url!, { method: 'POST', body: d.body, headers: d.headers });
    expect((await ok.json()) as Record<string, unknown>).toEqual({ received: d.event.id });
    const bad = await fetch(app.url!, { method: 'POST', body: d.body.replace('250.00', '950.00'), headers: d.headers });
    expect(bad.status).toBe(400);
    expect((await bad.json()) as Record<string, unknown>).toEqual({ error: 'no_key_matches' });
  });

  it('tunnel: a real borderd, borderd receive --tunnel and the example app', async () => {
    const daemon = await startBorderd();
    const creds = await daemonCredentials(daemon);
    const db = await openDaemonDb(daemon, creds.clientId);
    try {
      const pem = (await ensureSigningKey(db.ctx, db.orgId)).publicKey;
      const event = await db.emit('Transaction_Created', data);
      const app = await startNodeProcess([example('tunnel', 'app.mjs')], READY, { PUBLIC_KEY_FILE: keyFile(pem), PORT: '0' });
      await startReceive(
        ['--tunnel', daemon.url, '--forward-to', app.url!, '--capture-db', join(tempDir(), 'capture.db'), '--since', '10m'],
        /tunnel connected to (\S+)/,
        { BORDERD_CLIENT_ID: creds.clientId, BORDERD_CLIENT_SECRET: creds.clientSecret },
      );
      await app.waitForOutput(new RegExp(`received Transaction_Created ${event.id} \\(attempt 1\\)`));
    } finally {
      await daemon.stop();
    }
  });

  it('each example has a README, and each runnable one a line to run it', () => {
    for (const name of readdirSync(join(ROOT, 'examples'))) {
      const readme = readFileSync(join(ROOT, 'examples', name, 'README.md'), 'utf8');
      const runnable = readdirSync(join(ROOT, 'examples', name)).some((f) => /\.(m?js)$/.test(f));
      if (runnable) expect(readme, name).toMatch(/node examples\//);
    }
  });

  it('borderd/verify loads and works with nothing but node built-ins at run time', () => {
    // The built library copied where no node_modules is reachable, and a resolve hook that refuses
    // any specifier that is not a node built-in or a relative file: static, re-exported and dynamic
    // imports of express, better-sqlite3 or anything else would all fail here.
    const dir = tempDir('borderd-verify-alone-');
    cpSync(join(ROOT, 'dist', 'src', 'verify'), join(dir, 'verify'), { recursive: true, filter: (f) => !f.endsWith('.map') });
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { isBuiltin } from 'node:module';
export async function resolve(specifier, context, next) {
  if (isBuiltin(specifier) || /^(\\.{1,2}\\/|file:)/.test(specifier) || context.parentURL === undefined) return next(specifier, context);
  throw new Error('borderd/verify tried to load ' + specifier);
}`,
    );
    writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
    writeFileSync(
      join(dir, 'main.mjs'),
      `import { createServer } from 'node:http';
const v = await import('./verify/index.js');
const signer = v.createTestSigner();
const d = signer.signEvent('Transaction_Created', { id: 'txn_1' });
if (v.verifyWebhook(d.body, d.headers, signer.publicKey).id !== d.event.id) throw new Error('verifyWebhook');
const mw = v.createWebhookMiddleware({ publicKey: signer.publicKey });
const server = createServer((req, res) => mw(req, res, () => res.end(req.webhookEvent.id)));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const res = await fetch('http://127.0.0.1:' + server.address().port + '/', { method: 'POST', body: d.body, headers: d.headers });
const text = await res.text();
server.close();
let escaped = false;
try { await import('express'); } catch { escaped = true; }
console.log(JSON.stringify({ status: res.status, text, expressRefused: escaped }));`,
    );
    // Loading proves what runs; a lazy import() in a path this script does not take is caught by
    // reading every specifier of every built file: `import … from`, `export … from` (across lines),
    // bare `import '…'` and `import('…')`.
    for (const file of readdirSync(join(dir, 'verify')).filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(join(dir, 'verify', file), 'utf8');
      const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"`])([^'"`]+)\1/g)].map((m) => m[2]!);
      for (const spec of specifiers) expect(spec, `${file} imports ${spec}`).toMatch(/^(node:|\.\/)/);
    }
    const run = spawnSync(process.execPath, ['--import', './register.mjs', 'main.mjs'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
      timeout: 30_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ status: 200, text: expect.stringMatching(/^evt_/), expressRefused: true });
  });
});

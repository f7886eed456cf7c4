import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { daemonToken } from '../support/daemon-token.js';
import { hasOpenssl } from '../support/openssl.js';
import { ROOT, startBorderd } from '../support/process.js';
import { startReceiver, type Received } from '../delivery/receiver.js';
import { verifiesWithOpenssl } from '../delivery/dispatch/support.js';

const ADMIN = 'sw-admin-token-0123456789abcdefghij';
const BASE = '/v1/notifications/webhooks/settings';

/** What the `standardwebhooks` package (the specification's own library) says of a delivery. */
function standardWebhooksVerifies(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body.toString(), {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

/** The Python snippet of docs/verify.md, as the docs print it. */
function pythonSnippet(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'verify.md'), 'utf8');
  const m = /<!-- python-stdlib -->\s*```python\n([\s\S]*?)```/.exec(doc);
  expect(m, 'docs/verify.md has the marked Python snippet').not.toBeNull();
  return m![1]!;
}

function hasPython(): boolean {
  return spawnSync('python3', ['--version']).status === 0;
}

/**
 * Runs the docs' Python `verify` on a delivery; answers what it printed (ok, or the error). Not
 * execFileSync: a blocked event loop keeps fetch from retiring a keep-alive socket the daemon
 * closes meanwhile, and the next request would go out on it.
 */
async function pythonVerifies(secret: string, r: Received): Promise<string> {
  const script = `${pythonSnippet()}
import base64, json, sys
d = json.load(sys.stdin)
try:
    verify(d["secret"], d["headers"], base64.b64decode(d["body"]))
    print("ok")
except ValueError as e:
    print(e)
`;
  const input = JSON.stringify({
    secret,
    headers: {
      'webhook-id': r.headers['webhook-id'],
      'webhook-timestamp': r.headers['webhook-timestamp'],
      'webhook-signature': r.headers['webhook-signature'],
    },
    body: r.body.toString('base64'),
  });
  return new Promise((resolve, reject) => {
    const child = execFile('python3', ['-c', script], { encoding: 'utf8' }, (err, stdout) => (err ? reject(err) : resolve(stdout.trim())));
    child.stdin!.end(input);
  });
}

/**
 * Real deliveries of a real `borderd serve`, checked by code nobody here wrote: the
 * `standardwebhooks` npm package for webhook-signature (before, during and after a secret
 * rotation's window is opened), openssl for x-signature, and the Python standard library through
 * the snippet docs/verify.md prints.
 */
describe('Standard Webhooks interoperability (real borderd serve)', () => {
  it('deliveries verify with the standardwebhooks package, openssl and the docs’ Python, also during a secret rotation', async () => {
    const daemon = await startBorderd({ env: { BORDERD_ADMIN_TOKEN: ADMIN, BORDERD_DELIVERY_POLL_INTERVAL_MS: '100' } });
    const { accessToken, orgId } = await daemonToken(daemon);
    const bearer = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const receiver = await startReceiver();

    const hook = await fetch(`${daemon.url}${BASE}`, { method: 'POST', headers: bearer, body: JSON.stringify({ url: receiver.url }) });
    expect(hook.status).toBe(201);
    const { id, secret } = (await hook.json()) as { id: string; secret: string };

    const transaction = async () => {
      const res = await fetch(`${daemon.url}/admin/v1/transactions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orgId, type: 'Withdrawal', amount: '10.00', currency: 'USDC', network: 'ETHEREUM' }),
      });
      expect(res.status).toBe(201);
    };

    await transaction();
    await receiver.waitFor(1);
    const first = receiver.received[0]!;
    expect(first.headers['webhook-id']).toBe((JSON.parse(first.body.toString()) as { id: string }).id);
    expect(standardWebhooksVerifies(secret, first)).toBe(true);
    if (hasPython()) expect(await pythonVerifies(secret, first)).toBe('ok');
    const key = (await (await fetch(`${daemon.url}${BASE}/public-key`, { headers: bearer })).json()) as { publicKey: string };

    const rotated = await fetch(`${daemon.url}${BASE}/${id}/secret/rotate`, { method: 'POST', headers: bearer });
    expect(rotated.status).toBe(201);
    const fresh = ((await rotated.json()) as { secret: string }).secret;
    await transaction();
    await receiver.waitFor(2);
    const during = receiver.received[1]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardWebhooksVerifies(fresh, during)).toBe(true);
    expect(standardWebhooksVerifies(secret, during)).toBe(true);
    if (hasPython()) {
      expect(await pythonVerifies(fresh, during)).toBe('ok');
      expect(await pythonVerifies(secret, during)).toBe('ok');
    }
    // A secret of nobody's is refused by both.
    const stranger = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(standardWebhooksVerifies(stranger, during)).toBe(false);
    if (hasPython()) expect(await pythonVerifies(stranger, during)).toBe('no signature matches');

    expect((await daemon.stop()).code).toBe(0);
    // openssl last: its synchronous run holds the event loop, which no request may follow (see pythonVerifies).
    if (hasOpenssl()) for (const r of receiver.received) expect(verifiesWithOpenssl(r, key.publicKey)).toBe(true);
  });
});

import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestSigner,
  createWebhookMiddleware,
  fetchAccessToken,
  fetchPublicKey,
  verifySignature,
  verifyWebhook,
  WebhookVerificationError,
  COMPLIANCE_RESULTS,
  COMPLIANCE_STATUSES,
  VIRTUAL_ACCOUNT_STATUSES,
  type TransactionEventData,
  type WebhookRequest,
} from '../../src/verify/index.js';
import * as complianceService from '../../src/services/compliance-checks.js';

const txData: TransactionEventData = {
  id: 'txn_1',
  type: 'Deposit',
  status: 'Completed',
  previousStatus: 'Pending',
  amount: '100.25',
  currency: 'USDC',
  network: 'ETHEREUM',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
};

const signer = createTestSigner();
const other = createTestSigner();

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.code;
    throw err;
  }
  return 'none';
}

describe('verifyWebhook', () => {
  it('returns the parsed event for a string or Buffer body and case-insensitive headers', () => {
    const d = signer.signEvent('Transaction_Updated', txData);
    const upper = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toUpperCase(), v]));
    const fromString = verifyWebhook(d.body, upper, signer.publicKey);
    const fromBuffer = verifyWebhook(Buffer.from(d.body), new Headers(d.headers), signer.publicKey);
    expect(fromString).toEqual(d.event);
    expect(fromBuffer).toEqual(d.event);
    if (fromString.type === 'Transaction_Updated') expect(fromString.data.amount).toBe('100.25');
  });

  it('accepts any of several keys (rotation)', () => {
    const d = signer.signEvent('Transaction_Created', txData);
    expect(verifyWebhook(d.body, d.headers, [other.publicKey, signer.publicKey])).toEqual(d.event);
  });

  it('gives a stable code for each failure', () => {
    const d = signer.signEvent('Transaction_Created', txData);
    const { 'x-signature': _sig, ...noSig } = d.headers;
    expect(codeOf(() => verifyWebhook(d.body, noSig, signer.publicKey))).toBe('missing_header');
    expect(codeOf(() => verifyWebhook(d.body, { ...d.headers, 'x-signature': 'not base64!' }, signer.publicKey))).toBe(
      'malformed_signature',
    );
    expect(codeOf(() => verifyWebhook(d.body, d.headers, other.publicKey))).toBe('no_key_matches');
    expect(codeOf(() => verifyWebhook(d.body.replace('100.25', '900.25'), d.headers, signer.publicKey))).toBe('no_key_matches');
    expect(codeOf(() => verifyWebhook(JSON.parse(d.body) as never, d.headers, signer.publicKey))).toBe('body_not_raw');
  });

  it('explains express.raw() when handed a parsed object', () => {
    const d = signer.signEvent('Transaction_Created', txData);
    expect(() => verifyWebhook({ id: 'x' } as never, d.headers, signer.publicKey)).toThrow(/express\.raw\(/);
  });

  it('verifySignature throws the typed error for a missing signature, not a TypeError', () => {
    // What `req.headers['x-signature']` gives when the header is absent or empty.
    expect(codeOf(() => verifySignature('{}', undefined, signer.publicKey))).toBe('missing_header');
    expect(codeOf(() => verifySignature('{}', '', signer.publicKey))).toBe('missing_header');
    expect(codeOf(() => verifySignature('{}', 42 as never, signer.publicKey))).toBe('malformed_signature');
    const sig = signer.sign('{}');
    expect(verifySignature('{}', [sig], signer.publicKey)).toBe(true);
  });

  it('verifySignature is true only for the exact bytes', () => {
    const body = '{"a":1}';
    const sig = signer.sign(body);
    expect(verifySignature(body, sig, signer.publicKey)).toBe(true);
    expect(verifySignature('{"a": 1}', sig, signer.publicKey)).toBe(false);
  });
});

describe('event data unions', () => {
  it('are the ones the daemon produces, from one definition', () => {
    expect(VIRTUAL_ACCOUNT_STATUSES).toEqual(['Created', 'CreationFailed']);
    expect(COMPLIANCE_STATUSES).toEqual(['Pending', 'InProgress', 'Completed']);
    expect(COMPLIANCE_RESULTS).toEqual(['Approved', 'Rejected']);
    expect(complianceService.COMPLIANCE_STATUSES).toBe(COMPLIANCE_STATUSES);
    expect(complianceService.COMPLIANCE_RESULTS).toBe(COMPLIANCE_RESULTS);
  });
});

describe('createWebhookMiddleware', () => {
  const app = express();
  app.post('/hook', createWebhookMiddleware({ publicKey: signer.publicKey }), (req, res) => {
    res.json({ got: req.webhookEvent?.id, type: req.webhookEvent?.type });
  });

  it('calls next with the verified event', async () => {
    const d = signer.signEvent('Transaction_Created', txData);
    const res = await request(app).post('/hook').set(d.headers).send(d.body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ got: d.event.id, type: 'Transaction_Created' });
  });

  it('answers 400 on a bad signature and 415 on a non-JSON body', async () => {
    const d = signer.signEvent('Transaction_Created', txData);
    const tampered = await request(app).post('/hook').set(d.headers).send(d.body.replace('txn_1', 'txn_2'));
    expect(tampered.status).toBe(400);
    expect(tampered.body.code).toBe('no_key_matches');
    const text = signer.signBody('hello', { 'content-type': 'text/plain' });
    const notJson = await request(app).post('/hook').set(text.headers).send(text.body);
    expect(notJson.status).toBe(415);
    const signedGarbage = signer.signBody('not json');
    const garbage = await request(app).post('/hook').set(signedGarbage.headers).send(signedGarbage.body);
    expect(garbage.status).toBe(415);
  });
});

describe('createWebhookMiddleware with other body parsers', () => {
  it('uses the Buffer of express.raw and explains a body consumed by express.json', async () => {
    const raw = express();
    raw.post('/hook', express.raw({ type: 'application/json' }), createWebhookMiddleware({ publicKey: signer.publicKey }), (req, res) => {
      res.json({ got: req.webhookEvent?.id });
    });
    const d = signer.signEvent('Transaction_Created', txData);
    expect((await request(raw).post('/hook').set(d.headers).send(d.body)).body).toEqual({ got: d.event.id });
    const parsed = express();
    parsed.post('/hook', express.json(), createWebhookMiddleware({ publicKey: signer.publicKey }), (_req, res) => res.json({}));
    const res = await request(parsed).post('/hook').set(d.headers).send(d.body);
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('body_not_raw');
    expect(res.body.detail).toMatch(/express\.json\(\).*express\.raw\(\{ type: 'application\/json' \}\)/);
  });

  it('works on a plain node http server (the request and response types are structural)', async () => {
    const mw = createWebhookMiddleware({ publicKey: signer.publicKey });
    const server = createServer((req, res) =>
      mw(req, res, () => res.end(JSON.stringify({ got: (req as WebhookRequest).webhookEvent?.id }))),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const d = signer.signEvent('Transaction_Created', txData);
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        method: 'POST',
        body: d.body,
        headers: d.headers,
      });
      expect(await res.json()).toEqual({ got: d.event.id });
    } finally {
      server.close();
    }
  });
});

describe('createWebhookMiddleware over its limit', () => {
  it('answers 413 to a body over limitBytes, whether its length is declared or it comes chunked', async () => {
    const app = express();
    app.post('/hook', createWebhookMiddleware({ publicKey: signer.publicKey, limitBytes: 1000 }), (_req, res) =>
      res.json({ passed: true }),
    );
    const server = createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const size of [2000, 200_000, 3_000_000]) {
        const res = await fetch(`http://127.0.0.1:${port}/hook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: 'x'.repeat(size),
        });
        expect(res.status, String(size)).toBe(413);
        expect(res.headers.get('connection')).toBe('close');
        expect(await res.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
      }
      // No content-length: the limit is found while reading.
      const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/hook', method: 'POST', headers: { 'content-type': 'application/json' } },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 5; i++) req.write('y'.repeat(600));
        req.end();
      });
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body)).toMatchObject({ code: 'payload_too_large' });
      // Under the limit, the same server still verifies.
      const d = signer.signEvent('Transaction_Created', txData);
      expect((await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers: d.headers, body: d.body })).status).toBe(200);
    } finally {
      server.close();
    }
  });
});

describe('fetchPublicKey', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  /** A stand-in for borderd's token and public-key routes, whose key can be swapped (a rotation). */
  async function keyServer(initial: string) {
    const state = { key: initial, keyFetches: 0 };
    server = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/v1/auth/m2m/token') {
        res
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ accessToken: 'tok', tokenType: 'Bearer', expiresIn: 60 }));
      } else if (
        req.url!.split('?')[0] === '/v1/notifications/webhooks/settings/public-key' &&
        req.headers.authorization === 'Bearer tok'
      ) {
        state.keyFetches++;
        // The current key is that of the signer whose key is served; ?keyId= names it, or is unknown (404).
        const keyId = state.key === other.publicKey ? other.keyId : signer.keyId;
        const asked = new URL(req.url!, 'http://x').searchParams.get('keyId');
        if (asked !== null && asked !== keyId) return void res.writeHead(404).end();
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ keyId, publicKey: state.key, algorithm: 'RSA-SHA256', createdAt: '2026-01-01T00:00:00.000Z' }));
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { state, url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}` };
  }

  it('caches the key and refreshes once after a rotation', async () => {
    const { state, url } = await keyServer(signer.publicKey);
    const source = fetchPublicKey(url, { clientId: 'cli_1', clientSecret: 's' }, { minRefreshIntervalMs: 0 });
    const first = signer.signEvent('Transaction_Created', txData);
    expect(await source.verify(first.body, first.headers)).toEqual(first.event);
    expect(await source.verify(first.body, first.headers)).toEqual(first.event);
    expect(state.keyFetches).toBe(1);
    state.key = other.publicKey;
    const rotated = other.signEvent('Transaction_Created', txData);
    expect(await source.verify(rotated.body, rotated.headers)).toEqual(rotated.event);
    expect(state.keyFetches).toBe(2);
    // A forged signature triggers one refresh, and still fails.
    await expect(source.verify(first.body, first.headers)).rejects.toMatchObject({ code: 'no_key_matches' });
    expect(state.keyFetches).toBe(3);
  });

  it("heals a rotation that follows a forgery on the sender's first retry (default interval)", async () => {
    const { state, url } = await keyServer(signer.publicKey);
    let clock = 1_000_000;
    const source = fetchPublicKey(url, { clientId: 'cli_1', clientSecret: 's' }, { now: () => clock });
    await source.get();
    const forged = other.signEvent('Transaction_Created', txData);
    await expect(source.verify(forged.body, forged.headers)).rejects.toMatchObject({ code: 'no_key_matches' });
    expect(state.keyFetches).toBe(2);
    // The key really rotates a second later: the first delivery signed with it is inside the window.
    state.key = other.publicKey;
    clock += 1_000;
    const real = other.signEvent('Transaction_Updated', txData);
    await expect(source.verify(real.body, real.headers)).rejects.toMatchObject({ code: 'no_key_matches' });
    // borderd's first retry comes 5 s later, less its 20% jitter at worst.
    clock += 4_000;
    expect(await source.verify(real.body, real.headers)).toEqual(real.event);
    expect(state.keyFetches).toBe(3);
  });

  it('does not refresh again within the minimum interval', async () => {
    const { state, url } = await keyServer(signer.publicKey);
    const source = fetchPublicKey(url, { clientId: 'cli_1', clientSecret: 's' }, { minRefreshIntervalMs: 60_000 });
    await source.get();
    const forged = other.signEvent('Transaction_Created', txData);
    await expect(source.verify(forged.body, forged.headers)).rejects.toMatchObject({ code: 'no_key_matches' });
    expect(state.keyFetches).toBe(2);
    await expect(source.verify(forged.body, forged.headers)).rejects.toMatchObject({ code: 'no_key_matches' });
    expect(state.keyFetches).toBe(2);
  });

  it('serves the middleware from the URL', async () => {
    const { url } = await keyServer(signer.publicKey);
    const app = express();
    app.post('/hook', createWebhookMiddleware({ publicKeyUrl: url, credentials: { clientId: 'c', clientSecret: 's' } }), (req, res) => {
      res.json({ got: req.webhookEvent?.id });
    });
    const d = signer.signEvent('VirtualAccount_Created', {
      id: 'vac_1',
      identityId: null,
      accountId: null,
      currency: 'USD',
      status: 'Created',
      failureReason: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    const res = await request(app).post('/hook').set(d.headers).send(d.body);
    expect(res.body.got).toBe(d.event.id);
  });
});

describe('fetchPublicKey when borderd cannot be reached', () => {
  /** A port nobody listens on: the connection is refused, so fetch itself rejects. */
  const unreachable = 'http://127.0.0.1:1';

  it('rejects with no_public_key (not a fetch TypeError), and the middleware answers 503', async () => {
    const d = signer.signEvent('Transaction_Created', txData);
    const source = fetchPublicKey(unreachable, { clientId: 'cli_1', clientSecret: 's' });
    await expect(source.verify(d.body, d.headers)).rejects.toMatchObject({ name: 'WebhookVerificationError', code: 'no_public_key' });
    const app = express();
    app.post(
      '/hook',
      createWebhookMiddleware({ publicKeyUrl: unreachable, credentials: { clientId: 'c', clientSecret: 's' } }),
      (_req, res) => res.json({}),
    );
    const res = await request(app).post('/hook').set(d.headers).send(d.body);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('no_public_key');
  });

  it('never follows a redirect with the client secret or the token: the request fails, the other address gets nothing', async () => {
    const elsewhere: string[] = [];
    const other = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => (elsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''} ${body}`), res.end('{}')));
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const redirecting = createServer((req, res) => res.writeHead(307, { location: `${otherUrl}${req.url}` }).end());
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
      await expect(fetchAccessToken(url, { clientId: 'cli_1', clientSecret: 'bsk_secret' })).rejects.toMatchObject({
        code: 'no_public_key',
        message: expect.stringMatching(/307 \(a redirect\): not followed/),
      });
      await expect(fetchPublicKey(url, { clientId: 'cli_1', clientSecret: 'bsk_secret' }).get()).rejects.toMatchObject({
        code: 'no_public_key',
      });
      expect(elsewhere).toEqual([]);
    } finally {
      redirecting.close();
      other.close();
    }
  });

  it('rejects with no_public_key when the answer is not JSON', async () => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy error</html>'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const source = fetchPublicKey(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { clientId: 'cli_1', clientSecret: 's' });
      await expect(source.get()).rejects.toMatchObject({ code: 'no_public_key' });
    } finally {
      server.close();
    }
  });
});

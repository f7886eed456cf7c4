import { createSecretKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  createTestSigner,
  createWebhookMiddleware,
  fetchPublicKey,
  verifySignature,
  verifyWebhook,
  WebhookVerificationError,
  type PublicKeySource,
  type TransactionEventData,
} from '../../src/verify/index.js';
import { tempDir } from '../support/context.js';
import { ROOT } from '../support/process.js';
import { startNodeProcess } from '../receiver/support.js';

/** A key that cannot be read is the typed `invalid_public_key`, never OpenSSL's own error. */
const txData: TransactionEventData = {
  id: 'txn_k',
  type: 'Deposit',
  status: 'Completed',
  previousStatus: 'Pending',
  amount: '1.00',
  currency: 'USDC',
  network: 'ETHEREUM',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const signer = createTestSigner();
const BROKEN_PEM = '-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n';

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('an unreadable public key', () => {
  it('is WebhookVerificationError invalid_public_key from verifyWebhook and verifySignature, before anything about the delivery', () => {
    const d = signer.signEvent('Transaction_Created', txData);
    const { 'x-signature': _sig, ...unsigned } = d.headers;
    for (const key of [BROKEN_PEM, 'not a pem', [signer.publicKey, BROKEN_PEM], undefined, '', createSecretKey(Buffer.alloc(32))]) {
      for (const err of [
        errorOf(() => verifyWebhook(d.body, d.headers, key as never)),
        // A broken key shows on a delivery without a signature too, not as missing_header.
        errorOf(() => verifyWebhook(d.body, unsigned, key as never)),
        errorOf(() => verifySignature(d.body, d.headers['x-signature'], key as never)),
      ]) {
        expect(err, String(key)).toBeInstanceOf(WebhookVerificationError);
        expect((err as WebhookVerificationError).code).toBe('invalid_public_key');
      }
    }
    expect((errorOf(() => verifyWebhook(d.body, d.headers, BROKEN_PEM)) as Error).message).toMatch(
      /^the public key is not a readable PEM public key \(/,
    );
    expect((errorOf(() => verifyWebhook(d.body, d.headers, undefined as never)) as Error).message).toMatch(/none was given/);
  });

  it("takes a PEM given as bytes (readFileSync without an encoding), as Node's own verify does", () => {
    const d = signer.signEvent('Transaction_Created', txData);
    const bytes = Buffer.from(signer.publicKey);
    expect(verifyWebhook(d.body, d.headers, bytes).id).toBe(d.event.id);
    expect(verifySignature(d.body, d.headers['x-signature'], new Uint8Array(bytes))).toBe(true);
    expect(() => createWebhookMiddleware({ publicKey: bytes })).not.toThrow();
    expect((errorOf(() => verifyWebhook(d.body, d.headers, Buffer.from('not a pem'))) as WebhookVerificationError).code).toBe(
      'invalid_public_key',
    );
  });

  it('makes createWebhookMiddleware throw at once when given as publicKey', () => {
    for (const key of [BROKEN_PEM, undefined]) {
      const err = errorOf(() => createWebhookMiddleware({ publicKey: key as never }));
      expect(err).toBeInstanceOf(WebhookVerificationError);
      expect((err as WebhookVerificationError).code).toBe('invalid_public_key');
    }
  });

  it('from a keySource is answered 500 problem JSON by the middleware, not an HTML error page', async () => {
    const broken: PublicKeySource = {
      get: async () => ({ keyId: 'wsk_x', publicKey: BROKEN_PEM, algorithm: 'RSA-SHA256', createdAt: '' }),
      refresh: async () => ({ keyId: 'wsk_x', publicKey: BROKEN_PEM, algorithm: 'RSA-SHA256', createdAt: '' }),
      verify: async (raw, headers) => verifyWebhook(raw, headers, BROKEN_PEM),
    };
    const app = express();
    app.post('/hook', createWebhookMiddleware({ keySource: broken }), (_req, res) => res.json({ passed: true }));
    const d = signer.signEvent('Transaction_Created', txData);
    const res = await request(app).post('/hook').set(d.headers).send(d.body);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      status: 500,
      code: 'invalid_public_key',
      detail: expect.stringMatching(/not a readable PEM public key/),
    });
  });

  it("in borderd's answer to fetchPublicKey is no_public_key (503 in the middleware), and is fetched again", async () => {
    let keyFetches = 0;
    const server = createServer((req, res) => {
      if (req.url === '/v1/auth/m2m/token') return res.writeHead(201, { 'content-type': 'application/json' }).end('{"accessToken":"tok"}');
      keyFetches++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keyId: 'wsk_x', publicKey: BROKEN_PEM, algorithm: 'RSA-SHA256', createdAt: '' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => void server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const d = signer.signEvent('Transaction_Created', txData);
    const source = fetchPublicKey(url, { clientId: 'c', clientSecret: 's' });
    await expect(source.verify(d.body, d.headers)).rejects.toMatchObject({
      name: 'WebhookVerificationError',
      code: 'no_public_key',
      message: expect.stringMatching(/holds no readable public key/),
    });
    const app = express();
    app.post('/hook', createWebhookMiddleware({ publicKeyUrl: url, credentials: { clientId: 'c', clientSecret: 's' } }), (_req, res) =>
      res.json({}),
    );
    const res = await request(app).post('/hook').set(d.headers).send(d.body);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('no_public_key');
    expect(keyFetches).toBe(2); // not cached: each try asks again
  });

  it('is answered 500 by examples/plain-node-verify, which keeps running', async () => {
    const keyFile = join(tempDir('borderd-example-key-'), 'public.pem');
    writeFileSync(keyFile, BROKEN_PEM);
    const app = await startNodeProcess(
      [join(ROOT, 'examples', 'plain-node-verify', 'server.mjs')],
      /listening on (http:\/\/127\.0\.0\.1:\d+\S*)/,
      { PUBLIC_KEY_FILE: keyFile, PORT: '0' },
    );
    const d = signer.signEvent('Transaction_Created', txData);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(app.url!, { method: 'POST', body: d.body, headers: d.headers });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: 'invalid_public_key' });
    }
  });
});

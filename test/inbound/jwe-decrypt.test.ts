import { describe, expect, it } from 'vitest';
import { compactDecrypt, decodeProtectedHeader } from 'jose';
import { decryptJwe, JweDecryptError } from '../../src/inbound/jwe-decrypt.js';
import { tempDir } from '../support/context.js';
import { cardNetworkLibraryToken, joseToken, makeKeyPair, selfSignedCertificate } from './jwe-fixtures.js';

const key = makeKeyPair();
const other = makeKeyPair();
const lookup = (kid: string) => (kid === key.kid ? key.privateKey : undefined);

async function failure(p: Promise<unknown>): Promise<JweDecryptError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof JweDecryptError) return err;
    throw err;
  }
  throw new Error('expected a JweDecryptError');
}

describe('decryptJwe', () => {
  for (const enc of ['A128GCM', 'A192GCM', 'A256GCM', 'A128CBC-HS256'] as const) {
    it(`decrypts a jose token with ${enc}`, async () => {
      const token = await joseToken({ hello: enc }, key, { enc });
      const out = await decryptJwe(token, lookup);
      expect(JSON.parse(out.plaintext.toString('utf8'))).toEqual({ hello: enc });
      expect(out).toMatchObject({ kid: key.kid, enc, tolerated: [] });
    });
  }

  it("decrypts what the card network's client library encrypts, with its kid", async () => {
    const cert = selfSignedCertificate(key, tempDir());
    // Enough tokens that the library's unreplaced "/" shows up in some of them.
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const payload = { tokenUniqueReference: `DWSPMC000000000${i}`, status: 'ACTIVE', n: i, pad: 'é'.repeat(i * 7) };
      const token = cardNetworkLibraryToken(payload, cert);
      expect(decodeProtectedHeader(token.replace(/\//g, '_')).kid).toBe(key.kid);
      const out = await decryptJwe(token, lookup);
      expect(JSON.parse(out.plaintext.toString('utf8'))).toEqual(payload);
      expect(out.tolerated).toContain('gcm-iv-length');
      for (const t of out.tolerated) seen.add(t);
      // jose alone refuses these tokens: that is why the tolerant path exists.
      await expect(compactDecrypt(token, key.privateKey)).rejects.toThrow();
    }
    expect([...seen].sort()).toEqual(['base64-alphabet', 'gcm-iv-length']);
  });

  it('names an unknown kid', async () => {
    const err = await failure(decryptJwe(await joseToken({}, other), lookup));
    expect(err.code).toBe('unknown_kid');
    expect(err.kid).toBe(other.kid);
    expect(err.retryable).toBe(true);
  });

  it('names a wrong key (token for another key under a known kid)', async () => {
    const err = await failure(decryptJwe(await joseToken({}, other, { kid: key.kid }), lookup));
    expect(err.code).toBe('key_mismatch');
    expect(err.retryable).toBe(true);
  });

  it('names a tampered tag, for jose and library tokens alike', async () => {
    const flipLast = (t: string) => {
      const parts = t.split('.');
      const tag = Buffer.from(parts[4]!, 'base64');
      tag[0] = tag[0]! ^ 1;
      parts[4] = tag.toString('base64url');
      return parts.join('.');
    };
    const cert = selfSignedCertificate(key, tempDir());
    for (const token of [await joseToken({ a: 1 }, key), await joseToken({ a: 1 }, key, { enc: 'A128CBC-HS256' }), cardNetworkLibraryToken({ a: 1 }, cert)]) {
      const err = await failure(decryptJwe(flipLast(token), lookup));
      expect(err.code).toBe('decryption_failed');
      expect(err.retryable).toBe(false);
    }
  });

  it('refuses other algorithms and a missing kid', async () => {
    const header = (h: object) => Buffer.from(JSON.stringify(h)).toString('base64url');
    const rest = (await joseToken({}, key)).split('.').slice(1).join('.');
    expect((await failure(decryptJwe(`${header({ alg: 'RSA1_5', enc: 'A256GCM', kid: key.kid })}.${rest}`, lookup))).code).toBe('unsupported_algorithm');
    expect((await failure(decryptJwe(`${header({ alg: 'RSA-OAEP-256', enc: 'A256CBC-HS512', kid: key.kid })}.${rest}`, lookup))).code).toBe('unsupported_algorithm');
    expect((await failure(decryptJwe(`${header({ alg: 'RSA-OAEP-256', enc: 'A256GCM' })}.${rest}`, lookup))).code).toBe('missing_kid');
    expect((await failure(decryptJwe('a.b.c', lookup))).code).toBe('malformed_jwe');
  });
});

describe('decryptJwe tolerance stays narrow', () => {
  it('refuses a GCM IV of a length neither the standard nor the library uses', async () => {
    const parts = (await joseToken({ a: 1 }, key)).split('.');
    parts[2] = Buffer.alloc(20, 1).toString('base64url');
    const err = await failure(decryptJwe(parts.join('.'), lookup));
    expect(err.code).toBe('malformed_jwe');
    expect(err.message).toMatch(/20 bytes/);
  });

  it('refuses a truncated GCM tag even on the tolerant path', async () => {
    const cert = selfSignedCertificate(key, tempDir());
    const parts = cardNetworkLibraryToken({ a: 1 }, cert).split('.');
    parts[4] = Buffer.from(parts[4]!, 'base64').subarray(0, 12).toString('base64url');
    const err = await failure(decryptJwe(parts.join('.'), lookup));
    expect(err.code).toBe('decryption_failed');
    expect(err.message).toMatch(/16 are required/);
  });
});

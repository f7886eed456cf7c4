import { constants, createCipheriv, createHmac, publicEncrypt, randomBytes, webcrypto } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { compactDecrypt, decodeProtectedHeader } from 'jose';
import { decryptJwe, JweDecryptError } from '../../src/inbound/jwe-decrypt.js';
import { tempDir } from '../support/context.js';
import {
  cardNetworkLibraryToken,
  gcm16ByteIvToken,
  joseToken,
  makeKeyPair,
  selfSignedCertificate,
  slashAlphabetToken,
} from './jwe-fixtures.js';

const key = makeKeyPair();
const other = makeKeyPair();
const lookup = (kid: string) => (kid === key.kid ? key.privateKey : undefined);

/** Encodes bytes as a segment of `token` would be: base64url, or with "/" for a library token. */
const sameAlphabet = (token: string, bytes: Buffer) =>
  token.includes('/') ? bytes.toString('base64url').replace(/_/g, '/') : bytes.toString('base64url');

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

  it('makes one RSA operation for a token it decrypts, and a second only to name what went wrong', async () => {
    const rsa = vi.spyOn(webcrypto.subtle, 'decrypt');
    const rsaCalls = () =>
      rsa.mock.calls.filter(([algorithm]) => (typeof algorithm === 'string' ? algorithm : algorithm.name) === 'RSA-OAEP').length;
    try {
      await decryptJwe(await joseToken({ once: true }, key), lookup);
      expect(rsaCalls()).toBe(1);
      rsa.mockClear();
      const assigned = (kid: string) => (kid === 'portal-key-1' ? key.privateKey : undefined);
      expect((await failure(decryptJwe(await joseToken({}, other, { kid: 'portal-key-1' }), assigned))).code).toBe('key_mismatch');
      expect(rsaCalls()).toBe(2);
    } finally {
      rsa.mockRestore();
    }
  });

  it('names a wrong key under a kid the operator assigned (import --kid)', async () => {
    const assigned = (kid: string) => (kid === 'portal-key-1' ? key.privateKey : undefined);
    const err = await failure(decryptJwe(await joseToken({}, other, { kid: 'portal-key-1' }), assigned));
    expect(err.code).toBe('key_mismatch');
    expect(err.retryable).toBe(true);
  });

  it("an unwrap failure under the key's own fingerprint kid is the token's fault: decryption_failed, not retried", async () => {
    // Encrypted for another key while naming ours.
    const misnamed = await failure(decryptJwe(await joseToken({}, other, { kid: key.kid }), lookup));
    expect(misnamed.code).toBe('decryption_failed');
    expect(misnamed.retryable).toBe(false);
    // The encrypted-key segment altered in transit (jose and library tokens).
    const cert = selfSignedCertificate(key, tempDir());
    for (const token of [await joseToken({ a: 1 }, key), cardNetworkLibraryToken({ a: 1 }, cert)]) {
      const parts = token.split('.');
      const wrapped = Buffer.from(parts[1]!.replace(/\//g, '_'), 'base64url');
      wrapped[100] = wrapped[100]! ^ 0x01;
      parts[1] = sameAlphabet(token, wrapped);
      const err = await failure(decryptJwe(parts.join('.'), lookup));
      expect(err.code).toBe('decryption_failed');
      expect(err.message).toMatch(/encrypted key was altered/);
      expect(err.kid).toBe(key.kid);
    }
  });

  it('names a tampered tag, for jose and library tokens alike', async () => {
    const flipLast = (t: string) => {
      const parts = t.split('.');
      const tag = Buffer.from(parts[4]!.replace(/\//g, '_'), 'base64url');
      tag[0] = tag[0]! ^ 1;
      parts[4] = sameAlphabet(t, tag);
      return parts.join('.');
    };
    const cert = selfSignedCertificate(key, tempDir());
    for (const token of [
      await joseToken({ a: 1 }, key),
      await joseToken({ a: 1 }, key, { enc: 'A128CBC-HS256' }),
      cardNetworkLibraryToken({ a: 1 }, cert),
    ]) {
      const err = await failure(decryptJwe(flipLast(token), lookup));
      expect(err.code).toBe('decryption_failed');
      expect(err.retryable).toBe(false);
    }
  });

  it('refuses other algorithms, a missing kid and one longer than any key can have', async () => {
    const header = (h: object) => Buffer.from(JSON.stringify(h)).toString('base64url');
    const rest = (await joseToken({}, key)).split('.').slice(1).join('.');
    expect((await failure(decryptJwe(`${header({ alg: 'RSA1_5', enc: 'A256GCM', kid: key.kid })}.${rest}`, lookup))).code).toBe(
      'unsupported_algorithm',
    );
    expect((await failure(decryptJwe(`${header({ alg: 'RSA-OAEP-256', enc: 'A256CBC-HS512', kid: key.kid })}.${rest}`, lookup))).code).toBe(
      'unsupported_algorithm',
    );
    expect((await failure(decryptJwe(`${header({ alg: 'RSA-OAEP-256', enc: 'A256GCM' })}.${rest}`, lookup))).code).toBe('missing_kid');
    expect((await failure(decryptJwe('a.b.c', lookup))).code).toBe('malformed_jwe');
    // A kid no key can have (longer than any held one) is the token's fault, not retried, and not repeated in the reason.
    const huge = await failure(decryptJwe(`${header({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: 'k'.repeat(600_000) })}.${rest}`, lookup));
    expect([huge.code, huge.retryable]).toEqual(['malformed_jwe', false]);
    expect(huge.message.length).toBeLessThan(200);
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
    parts[4] = sameAlphabet(parts.join('.'), Buffer.from(parts[4]!.replace(/\//g, '_'), 'base64url').subarray(0, 12));
    const err = await failure(decryptJwe(parts.join('.'), lookup));
    expect(err.code).toBe('decryption_failed');
    expect(err.message).toMatch(/16 are required/);
  });
});

describe('decryptJwe tolerant path, per content encryption', () => {
  // The library itself only makes A256GCM; the other encs come from standard producers, and the
  // tolerant path (node:crypto, not jose) must read each of them when a token needs it.
  for (const enc of ['A128GCM', 'A192GCM', 'A256GCM', 'A128CBC-HS256'] as const) {
    it(`reads ${enc} with "/" left in its segments`, async () => {
      const token = await slashAlphabetToken({ enc, slash: true }, key, enc);
      await expect(compactDecrypt(token, key.privateKey)).rejects.toThrow();
      const out = await decryptJwe(token, lookup);
      expect(JSON.parse(out.plaintext.toString('utf8'))).toEqual({ enc, slash: true });
      expect(out).toMatchObject({ enc, tolerated: ['base64-alphabet'] });
    });
  }
  for (const enc of ['A128GCM', 'A192GCM', 'A256GCM'] as const) {
    it(`reads ${enc} with a 16-byte IV`, async () => {
      const token = gcm16ByteIvToken({ enc, iv: 16 }, key, enc);
      await expect(compactDecrypt(token, key.privateKey)).rejects.toThrow();
      const out = await decryptJwe(token, lookup);
      expect(JSON.parse(out.plaintext.toString('utf8'))).toEqual({ enc, iv: 16 });
      expect(out).toMatchObject({ enc, tolerated: ['gcm-iv-length'] });
    });
  }
  it("reads A128CBC-HS256 with a valid HMAC but broken padding as decryption_failed, the token's fault, on either path", async () => {
    /** An A128CBC-HS256 token whose last block does not end in valid padding, its HMAC computed over it. */
    const badPadding = (slash: boolean): string => {
      for (;;) {
        const header = Buffer.from(JSON.stringify({ alg: 'RSA-OAEP-256', enc: 'A128CBC-HS256', kid: key.kid })).toString('base64url');
        const cek = randomBytes(32);
        const iv = randomBytes(16);
        const cipher = createCipheriv('aes-128-cbc', cek.subarray(16), iv).setAutoPadding(false);
        const ciphertext = Buffer.concat([cipher.update(Buffer.alloc(32, 0)), cipher.final()]); // ends in 0x00: no valid padding
        const al = Buffer.alloc(8);
        al.writeBigUInt64BE(BigInt(header.length * 8));
        const tag = createHmac('sha256', cek.subarray(0, 16))
          .update(Buffer.concat([Buffer.from(header, 'ascii'), iv, ciphertext, al]))
          .digest()
          .subarray(0, 16);
        const wrapped = publicEncrypt({ key: key.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, cek);
        const token = [
          header,
          wrapped.toString('base64url'),
          iv.toString('base64url'),
          ciphertext.toString('base64url'),
          tag.toString('base64url'),
        ].join('.');
        if (!slash) return token;
        if (token.includes('_')) return token.replace(/_/g, '/');
      }
    };
    for (const slash of [false, true])
      expect((await failure(decryptJwe(badPadding(slash), lookup))).code, slash ? 'library alphabet' : 'base64url').toBe(
        'decryption_failed',
      );
  });

  it('still verifies the A128CBC-HS256 HMAC on the tolerant path', async () => {
    const parts = (await slashAlphabetToken({ a: 1 }, key, 'A128CBC-HS256')).split('.');
    parts[4] = parts[4]!.startsWith('A') ? `B${parts[4]!.slice(1)}` : `A${parts[4]!.slice(1)}`;
    const err = await failure(decryptJwe(parts.join('.'), lookup));
    expect(err.code).toBe('decryption_failed');
  });
});

describe('decryptJwe alphabet: only what the library really writes', () => {
  const withSegment = async (i: number, edit: (s: string) => string) => {
    const parts = (await joseToken({ a: 1 }, key)).split('.');
    parts[i] = edit(parts[i]!);
    return parts.join('.');
  };
  it('refuses "+", which the library replaces with "-"', async () => {
    const token = await withSegment(3, (s) => `+${s.slice(1)}`);
    const err = await failure(decryptJwe(token, lookup));
    expect(err.code).toBe('malformed_jwe');
    expect(err.message).toMatch(/not base64url/);
  });
  it('refuses "=" padding, which the library strips', async () => {
    const token = await withSegment(2, (s) => `${s.slice(0, -2)}==`);
    expect((await failure(decryptJwe(token, lookup))).code).toBe('malformed_jwe');
  });
  it('refuses "_" and "/" mixed in one token (no producer writes both)', async () => {
    const token = (await slashAlphabetToken({ a: 1 }, key, 'A256GCM')).split('.');
    // A "/" in the encrypted key, a "_" in the ciphertext.
    token[1] = `/${token[1]!.slice(1)}`;
    token[3] = `_${token[3]!.slice(1)}`;
    expect((await failure(decryptJwe(token.join('.'), lookup))).code).toBe('malformed_jwe');
  });
  it('refuses a segment length no base64 has', async () => {
    const token = await withSegment(3, (s) => (s.length % 4 === 0 ? `${s}A` : s.length % 4 === 2 ? `${s.slice(0, -1)}` : `${s}AA`));
    expect((await failure(decryptJwe(token, lookup))).code).toBe('malformed_jwe');
  });
});

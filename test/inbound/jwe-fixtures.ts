import { constants, createCipheriv, generateKeyPairSync, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CompactEncrypt } from 'jose';
import { spkiFingerprint } from '../../src/inbound/key-fingerprint.js';

/** Test key pairs and tokens as the card network would send them. */
export interface TestKeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
  privatePem: string;
  kid: string;
}

export function makeKeyPair(bits = 2048): TestKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return {
    publicKey,
    privateKey,
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    kid: spkiFingerprint(publicKey),
  };
}

/** A standards-conformant compact JWE made by jose. */
export async function joseToken(
  payload: unknown,
  key: { publicKey: KeyObject; kid: string },
  opts: { enc?: 'A128GCM' | 'A192GCM' | 'A256GCM' | 'A128CBC-HS256'; kid?: string } = {},
): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: opts.enc ?? 'A256GCM', kid: opts.kid ?? key.kid, cty: 'application/json' })
    .encrypt(key.publicKey);
}

export function notification(data: unknown, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { eventId: 'ev-1', eventType: 'TOKEN_STATUS_UPDATED', eventCreatedDate: '2026-01-01T00:00:00.000Z', ica: '123456', data, ...over };
}

const require = createRequire(import.meta.url);

interface ForgeLike {
  pki: {
    privateKeyFromPem(pem: string): unknown;
    publicKeyFromPem(pem: string): unknown;
    createCertificate(): {
      publicKey: unknown;
      serialNumber: string;
      validity: { notBefore: Date; notAfter: Date };
      setSubject(a: unknown[]): void;
      setIssuer(a: unknown[]): void;
      sign(key: unknown, md: unknown): void;
    };
    certificateToPem(cert: unknown): string;
  };
  md: { sha256: { create(): unknown } };
}

/** A self-signed certificate for the key pair, as the card network's library needs one to encrypt. */
export function selfSignedCertificate(pair: TestKeyPair, dir: string): string {
  const forge = require('node-forge') as ForgeLike;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date('2025-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2035-01-01T00:00:00Z');
  const attrs = [{ name: 'commonName', value: 'borderd test' }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(forge.pki.privateKeyFromPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()), forge.md.sha256.create());
  const file = join(dir, `cert-${pair.kid.slice(0, 8)}.pem`);
  writeFileSync(file, forge.pki.certificateToPem(cert));
  return file;
}

interface JweEncryptionLike {
  encrypt(endpoint: string, header: Record<string, unknown>, body: unknown): { header: unknown; body: Record<string, unknown> };
}

/**
 * Encrypts `payload` with the card network's own client library in JWE mode, the way a sender
 * configured with our certificate does; returns the compact token it produced.
 */
export function cardNetworkLibraryToken(
  payload: Record<string, unknown>,
  certificateFile: string,
  opts: { publicKeyFingerprint?: string } = {},
): string {
  const { JweEncryption } = require('mastercard-client-encryption') as { JweEncryption: new (config: unknown) => JweEncryptionLike };
  const jwe = new JweEncryption({
    paths: [{ path: '/notifications', toEncrypt: [{ element: '$', obj: '$' }], toDecrypt: [] }],
    mode: 'JWE',
    encryptedValueFieldName: 'encryptedValue',
    encryptionCertificate: certificateFile,
    ...(opts.publicKeyFingerprint ? { publicKeyFingerprint: opts.publicKeyFingerprint } : {}),
  });
  const { body } = jwe.encrypt('/notifications', {}, structuredClone(payload));
  return body.encryptedValue as string;
}

/**
 * A jose token rewritten in the card network library's alphabet: "/" where base64url has "_" (the
 * library never replaces "/"). Tokens are drawn until one holds a "_", so the result differs.
 */
export async function slashAlphabetToken(
  payload: unknown,
  key: { publicKey: KeyObject; kid: string },
  enc: 'A128GCM' | 'A192GCM' | 'A256GCM' | 'A128CBC-HS256',
): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const token = await joseToken(payload, key, { enc });
    if (token.includes('_')) return token.replace(/_/g, '/');
  }
  throw new Error('no token with "_" in 50 draws');
}

/**
 * An AES-GCM compact JWE with a 16-byte IV, the way the card network's library draws it, but for any
 * GCM enc and in strict base64url, built with node:crypto (jose refuses to make or read these).
 */
export function gcm16ByteIvToken(
  payload: unknown,
  key: { publicKey: KeyObject; kid: string },
  enc: 'A128GCM' | 'A192GCM' | 'A256GCM',
): string {
  const bytes = { A128GCM: 16, A192GCM: 24, A256GCM: 32 }[enc];
  const header = Buffer.from(JSON.stringify({ alg: 'RSA-OAEP-256', enc, kid: key.kid })).toString('base64url');
  const cek = randomBytes(bytes);
  const iv = randomBytes(16);
  const wrapped = publicEncrypt({ key: key.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, cek);
  const cipher = createCipheriv(`aes-${bytes * 8}-gcm` as 'aes-256-gcm', cek, iv);
  cipher.setAAD(Buffer.from(header, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return [
    header,
    wrapped.toString('base64url'),
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

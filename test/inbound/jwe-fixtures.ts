import { generateKeyPairSync, type KeyObject } from 'node:crypto';
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
  return { publicKey, privateKey, privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), kid: spkiFingerprint(publicKey) };
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

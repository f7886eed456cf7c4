/**
 * Card-network key ids: the SPKI fingerprint a kid defaults to, and how kids compare.
 *
 * @module inbound/key-fingerprint
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The JWE `kid` the card network puts in its tokens: SHA-256 over the DER of the public key's
 * SubjectPublicKeyInfo, lowercase hex. This is what the card network's client library computes by
 * default (forge getPublicKeyFingerprint, type SubjectPublicKeyInfo, SHA-256, hex); its optional
 * "certificate" fingerprint (a hash of the whole certificate) is covered by importing the key
 * with an explicit kid.
 */
export function spkiFingerprint(key: KeyObject | string): string {
  const publicKey = typeof key === 'string' ? createPublicKey(key) : key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** The longest kid a held key may have; a token naming a longer one can match no key. */
export const MAX_KID_LENGTH = 255;

/** kids compare case-insensitively: hex fingerprints are printed in either case. */
export const normalizeKid = (kid: string): string => (/^[0-9a-fA-F]{64}$/.test(kid) ? kid.toLowerCase() : kid);

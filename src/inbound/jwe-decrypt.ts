/**
 * Decrypts the `data` JWE of a card-network notification: RSA-OAEP-256 key wrapping with A256GCM
 * (and the A128GCM, A192GCM and A128CBC-HS256 content encryptions the card network's client library
 * knows), the key chosen by the `kid` header.
 *
 * @module inbound/jwe-decrypt
 */
import { createDecipheriv, createHmac, timingSafeEqual, webcrypto, type KeyObject } from 'node:crypto';
import { compactDecrypt, errors as joseErrors } from 'jose';
import { decodeSegment, segmentAlphabet, type SegmentAlphabet } from './jwe-segments.js';
import { MAX_KID_LENGTH, normalizeKid, spkiFingerprint } from './key-fingerprint.js';

export type DecryptFailureCode =
  'malformed_jwe' | 'unsupported_algorithm' | 'missing_kid' | 'unknown_kid' | 'key_mismatch' | 'decryption_failed';

/** Failures caused by the token's bytes themselves: no key import cures them, only a new copy. */
export const CONTENT_FAILURES: readonly DecryptFailureCode[] = [
  'malformed_jwe',
  'unsupported_algorithm',
  'missing_kid',
  'decryption_failed',
];

export class JweDecryptError extends Error {
  override name = 'JweDecryptError';
  constructor(
    readonly code: DecryptFailureCode,
    message: string,
    readonly kid: string | null = null,
  ) {
    super(message);
  }
  /** Failures that a key import can cure are retried; a malformed or tampered token never changes. */
  get retryable(): boolean {
    return !CONTENT_FAILURES.includes(this.code);
  }
}

export type ContentEncryption = 'A128GCM' | 'A192GCM' | 'A256GCM' | 'A128CBC-HS256';
const CEK_BYTES: Record<ContentEncryption, number> = { A128GCM: 16, A192GCM: 24, A256GCM: 32, 'A128CBC-HS256': 32 };
const STANDARD_IV_BYTES: Record<ContentEncryption, number> = { A128GCM: 12, A192GCM: 12, A256GCM: 12, 'A128CBC-HS256': 16 };
const LIBRARY_GCM_IV_BYTES = 16;
export const KEY_MANAGEMENT_ALGORITHMS = ['RSA-OAEP-256'] as const;
export const CONTENT_ENCRYPTIONS = Object.keys(CEK_BYTES) as ContentEncryption[];

export type Tolerance = 'gcm-iv-length' | 'base64-alphabet';

export interface DecryptedJwe {
  plaintext: Buffer;
  kid: string;
  enc: ContentEncryption;
  /** Departures from the standard this token needed; empty when jose decrypted it. */
  tolerated: Tolerance[];
}

interface Parsed {
  segments: [string, string, string, string, string];
  alphabet: SegmentAlphabet;
  header: { alg: string; enc: ContentEncryption; kid: string };
  encryptedKey: Buffer;
  iv: Buffer;
  tag: Buffer;
}

function parse(token: string): Parsed {
  const segments = token.split('.');
  if (segments.length !== 5) throw new JweDecryptError('malformed_jwe', `a compact JWE has 5 segments; this one has ${segments.length}`);
  const alphabet = segmentAlphabet(segments);
  if (!alphabet) {
    throw new JweDecryptError(
      'malformed_jwe',
      'the segments are not base64url (characters A-Z a-z 0-9 - _, no padding; "/" instead of "_" is tolerated, as the card network\'s library writes it)',
    );
  }
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(decodeSegment(segments[0]!).toString('utf8')) as Record<string, unknown>;
    if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new Error('not an object');
  } catch {
    throw new JweDecryptError('malformed_jwe', 'the protected header is not a base64url JSON object');
  }
  const { alg, enc, kid } = header;
  if (!KEY_MANAGEMENT_ALGORITHMS.includes(alg as 'RSA-OAEP-256'))
    throw new JweDecryptError('unsupported_algorithm', `alg ${String(alg)} is not accepted; expected RSA-OAEP-256`);
  if (!CONTENT_ENCRYPTIONS.includes(enc as ContentEncryption))
    throw new JweDecryptError(
      'unsupported_algorithm',
      `enc ${String(enc)} is not accepted; expected one of ${CONTENT_ENCRYPTIONS.join(', ')}`,
    );
  if (header.zip !== undefined || header.crit !== undefined)
    throw new JweDecryptError('unsupported_algorithm', 'zip and crit headers are not accepted');
  if (typeof kid !== 'string' || kid === '')
    throw new JweDecryptError('missing_kid', 'the protected header has no kid, so no key can be chosen');
  // Not an unknown kid to wait for a key for: no key can have it. Said without the kid itself, which
  // would otherwise be copied, whatever its size, into the row and every log line about it.
  if (kid.length > MAX_KID_LENGTH)
    throw new JweDecryptError('malformed_jwe', `the kid is ${kid.length} characters long; a key's kid has at most ${MAX_KID_LENGTH}`);
  const s = segments as Parsed['segments'];
  return {
    segments: s,
    alphabet,
    header: { alg: alg as string, enc: enc as ContentEncryption, kid },
    encryptedKey: decodeSegment(s[1]),
    iv: decodeSegment(s[2]),
    tag: decodeSegment(s[4]),
  };
}

/**
 * The private key as WebCrypto's RSA-OAEP-256 decryption key, made once per key. WebCrypto runs the
 * RSA operation on libuv's thread pool, where node:crypto's privateDecrypt would run it on the
 * daemon's main thread, a millisecond or more each (several with a 4096-bit key): a queue of a
 * thousand notifications would hold every request and send for seconds.
 */
const oaepKeys = new WeakMap<KeyObject, Promise<webcrypto.CryptoKey>>();
function oaepKeyOf(key: KeyObject): Promise<webcrypto.CryptoKey> {
  let made = oaepKeys.get(key);
  if (!made) {
    made = webcrypto.subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, [
      'decrypt',
    ]);
    oaepKeys.set(key, made);
  }
  return made;
}

/**
 * RSA-OAEP-256 unwrap of the content key. When it fails, the kid decides what it means. A kid that is
 * the held key's own SPKI fingerprint names exactly that key, so the key is right and the token is
 * not: its encrypted-key segment was altered or corrupted, or the sender encrypted for another key
 * while naming this one. Either way no key import cures it, and a redelivered genuine copy must be
 * able to replace it: `decryption_failed`. A kid the operator assigned at import (`--kid`) proves
 * nothing about the key behind it, so there a wrong key is the likelier cause: `key_mismatch`,
 * retried (the operator may be swapping the key).
 */
async function unwrapKey(p: Parsed, key: KeyObject): Promise<Buffer> {
  const oaep = await oaepKeyOf(key);
  let cek: Buffer;
  try {
    cek = Buffer.from(await webcrypto.subtle.decrypt({ name: 'RSA-OAEP' }, oaep, p.encryptedKey));
  } catch {
    const { kid } = p.header;
    if (spkiFingerprint(key) === normalizeKid(kid)) {
      throw new JweDecryptError(
        'decryption_failed',
        `the content key does not unwrap (RSA-OAEP-256) with the key whose fingerprint is kid ${kid}: the encrypted key was altered or corrupted, or the sender encrypted for another key while naming this one`,
        kid,
      );
    }
    throw new JweDecryptError(
      'key_mismatch',
      `the content key does not unwrap with the private key imported under kid ${kid} (RSA-OAEP-256): the token was encrypted for another key`,
      kid,
    );
  }
  if (cek.length !== CEK_BYTES[p.header.enc]) {
    throw new JweDecryptError(
      'decryption_failed',
      `the content key has ${cek.length} bytes; ${p.header.enc} needs ${CEK_BYTES[p.header.enc]}`,
      p.header.kid,
    );
  }
  return cek;
}

const tagFailure = (kid: string) =>
  new JweDecryptError('decryption_failed', 'the authentication tag does not match: the token was altered or corrupted', kid);

/** AES-GCM or AES-CBC + HMAC-SHA-256 (RFC 7518 5.2) over the segments as received. */
function decryptContent(p: Parsed, cek: Buffer): Buffer {
  const aad = Buffer.from(p.segments[0], 'ascii');
  const ciphertext = decodeSegment(p.segments[3]);
  const { enc, kid } = p.header;
  if (p.tag.length !== 16)
    throw new JweDecryptError('decryption_failed', `the authentication tag has ${p.tag.length} bytes; 16 are required`, kid);
  if (enc === 'A128CBC-HS256') {
    if (p.iv.length !== 16) throw new JweDecryptError('malformed_jwe', 'A128CBC-HS256 needs a 16-byte IV', kid);
    const al = Buffer.alloc(8);
    al.writeBigUInt64BE(BigInt(aad.length * 8));
    const mac = createHmac('sha256', cek.subarray(0, 16))
      .update(Buffer.concat([aad, p.iv, ciphertext, al]))
      .digest()
      .subarray(0, 16);
    if (!timingSafeEqual(mac, p.tag)) throw tagFailure(kid);
    const decipher = createDecipheriv('aes-128-cbc', cek.subarray(16), p.iv);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      // The MAC matched, so whoever made the token held the content key and still padded it wrong
      // (or the ciphertext length is not whole blocks): the token's content, never borderd's fault.
      throw new JweDecryptError(
        'decryption_failed',
        'the ciphertext does not decrypt (A128CBC-HS256 padding or length): the token is malformed',
        kid,
      );
    }
  }
  // 12 bytes is the standard; 16 is what the card network's library draws. Nothing else is taken.
  if (p.iv.length !== 12 && p.iv.length !== LIBRARY_GCM_IV_BYTES)
    throw new JweDecryptError(
      'malformed_jwe',
      `the GCM IV has ${p.iv.length} bytes; 12 (or 16 from the card network's library) are accepted`,
      kid,
    );
  const decipher = createDecipheriv(`aes-${cek.length * 8}-gcm` as 'aes-256-gcm', cek, p.iv, { authTagLength: 16 });
  decipher.setAAD(aad);
  decipher.setAuthTag(p.tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw tagFailure(kid);
  }
}

function tolerancesOf(p: Parsed): Tolerance[] {
  const out: Tolerance[] = [];
  if (p.alphabet === 'library') out.push('base64-alphabet');
  if (p.header.enc !== 'A128CBC-HS256' && p.iv.length !== STANDARD_IV_BYTES[p.header.enc]) out.push('gcm-iv-length');
  return out;
}

/**
 * Decrypts with the key `lookup` returns for the token's kid. Throws JweDecryptError with a code
 * and a reason an operator can act on.
 *
 * Standards-conformant tokens go through jose. Tokens the card network's client library makes depart
 * from RFC 7516/7518 in two ways jose (rightly) refuses, and only those are accepted by the narrow
 * path of this module, built on node:crypto (docs/inbound.md lists them):
 *  1. a 16-byte AES-GCM IV where JWA requires 96 bits;
 *  2. "/" left in segments: its base64url conversion replaces "+" with "-" and strips "=", but
 *     replaces a backslash (instead of "/") with "_", so "/" stays and "_" never appears. It never
 *     emits "+" or "=", and neither is accepted (jwe-segments.ts).
 * That library only encrypts RSA-OAEP-256 + A256GCM; A128GCM, A192GCM and A128CBC-HS256 come from
 * standard JWE producers and are accepted on either path. Everything else stays strict: the full
 * 128-bit GCM tag, the HMAC of A128CBC-HS256 (which that library's own decryptor skips), the header
 * bytes as received as additional data.
 */
export async function decryptJwe(
  token: string,
  lookup: (kid: string) => KeyObject | undefined | Promise<KeyObject | undefined>,
): Promise<DecryptedJwe> {
  const p = parse(token);
  const { kid, enc } = p.header;
  const key = await lookup(kid);
  if (!key) throw new JweDecryptError('unknown_kid', `no card-network key with kid ${kid} is held for this organization`, kid);
  const tolerated = tolerancesOf(p);
  if (tolerated.length > 0) return { plaintext: decryptContent(p, await unwrapKey(p, key)), kid, enc, tolerated };
  try {
    // jose unwraps with the same WebCrypto key (one RSA operation per token, on the thread pool).
    const { plaintext } = await compactDecrypt(token, await oaepKeyOf(key), {
      keyManagementAlgorithms: [...KEY_MANAGEMENT_ALGORITHMS],
      contentEncryptionAlgorithms: CONTENT_ENCRYPTIONS,
    });
    return { plaintext: Buffer.from(plaintext), kid, enc, tolerated };
  } catch (err) {
    if (err instanceof joseErrors.JWEDecryptionFailed) {
      // jose says only "failed", for a wrong key and a tampered token alike. Unwrapping the content
      // key here tells them apart (unwrapKey throws key_mismatch or decryption_failed); a key that
      // unwraps leaves the content at fault. Done only on this path, so that a token that decrypts
      // costs one RSA operation, not two. The answer reaches only the operator (the sender already
      // has its 200), so this is no padding oracle.
      await unwrapKey(p, key);
      throw tagFailure(kid);
    }
    if (err instanceof joseErrors.JOSEError) throw new JweDecryptError('malformed_jwe', `jose refused the token: ${err.message}`, kid);
    throw err;
  }
}

/**
 * The private key inside a PKCS#12 keystore (.p12 / .pfx, RFC 7292). PKI.js (with asn1js) reads
 * the structure and verifies the keystore's integrity MAC (the RFC 7292 appendix B key derivation,
 * HMAC-SHA-1/256/384/512); node:crypto decrypts the key bag (PBES2/PBKDF2/AES or the legacy
 * PKCS#12 SHA1-3DES scheme). Nothing is read from a keystore whose MAC does not verify.
 *
 * @module inbound/pkcs12
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import { AuthenticatedSafe, ContentInfo, getCrypto, PFX, PKCS8ShroudedKeyBag, PrivateKeyInfo, SafeContents } from 'pkijs';

/**
 * What went wrong, as a stable string: `integrity_failed` (a wrong password or an altered file:
 * the MAC does not verify), `password_required`, `no_integrity` (no MAC to verify), `unsupported`
 * (an integrity mode or MAC algorithm borderd does not verify), `malformed`, `no_private_key`,
 * `several_private_keys`, `invalid_key`, `not_pkcs12`.
 */
export type Pkcs12ErrorCode =
  | 'not_pkcs12'
  | 'malformed'
  | 'no_integrity'
  | 'unsupported'
  | 'password_required'
  | 'integrity_failed'
  | 'invalid_key'
  | 'no_private_key'
  | 'several_private_keys';

export class Pkcs12Error extends Error {
  override name = 'Pkcs12Error';
  constructor(
    readonly code: Pkcs12ErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const PKCS12_CONVERT_HINT = 'convert it with `openssl pkcs12 -in keystore.p12 -nocerts -nodes -out key.pem` and import key.pem';
const PASSWORD_HINT = '--keystore-password or BORDERD_KEY_PASSPHRASE';

/**
 * The most MAC iterations verified. OpenSSL writes 2048 and Java's keytool 10,000; PKI.js runs the
 * derivation in JavaScript, so an unbounded count from a crafted file would hold the CPU for hours.
 */
export const MAX_MAC_ITERATIONS = 1_000_000;

const OID = {
  keyBag: '1.2.840.113549.1.12.10.1.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
} as const;

/** The PFX in `der` (password-integrity mode, the whole buffer), or undefined when it is not one. */
function parsePfx(der: Buffer): PFX | undefined {
  try {
    const asn1 = asn1js.fromBER(der);
    if (asn1.offset !== der.length || asn1.result.error) return undefined;
    const pfx = new PFX({ schema: asn1.result });
    return pfx.version === 3 && pfx.authSafe.contentType === ContentInfo.DATA && pfx.authSafe.content instanceof asn1js.OctetString
      ? pfx
      : undefined;
  } catch {
    return undefined;
  }
}

/** True when the bytes are a PKCS#12 keystore (PFX version 3 with data content). */
export function isPkcs12(der: Buffer): boolean {
  return parsePfx(der) !== undefined;
}

const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

async function macVerifies(pfx: PFX, password: string): Promise<boolean> {
  const crypto = getCrypto(true);
  const mac = pfx.macData!;
  const iterations = mac.iterations ?? 1;
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_MAC_ITERATIONS)
    throw new Pkcs12Error('unsupported', `the keystore's integrity MAC asks for ${iterations} iterations (at most ${MAX_MAC_ITERATIONS})`);
  const oid = mac.mac.digestAlgorithm.algorithmId;
  const hash = crypto.getAlgorithmByOID<{ name: string }>(oid);
  if (!('name' in hash) || !/^SHA-(1|256|384|512)$/i.test(hash.name))
    throw new Pkcs12Error(
      'unsupported',
      `the keystore's integrity MAC uses an algorithm borderd does not verify (${oid}); ${PKCS12_CONVERT_HINT}`,
    );
  const content = (pfx.authSafe.content as asn1js.OctetString).getValue();
  return await crypto.verifyDataStampedWithPassword({
    password: new TextEncoder().encode(password).buffer as ArrayBuffer,
    hashAlgorithm: hash.name,
    salt: mac.macSalt.getValue(),
    iterationCount: iterations,
    contentToVerify: content,
    signatureToVerify: mac.mac.digest.getValue(),
  });
}

/**
 * Verifies the keystore's integrity MAC under `password`; without a password, under the empty one
 * (a keystore exported with an empty password), and a keystore that needs one asks for it.
 */
async function verifyIntegrity(pfx: PFX, password: string | undefined): Promise<void> {
  if (!pfx.macData)
    throw new Pkcs12Error(
      'no_integrity',
      'the keystore has no integrity MAC, so an altered file cannot be told from a good one; export it again with `openssl pkcs12 -export` (without -nomac)',
    );
  if (await macVerifies(pfx, password ?? '')) return;
  if (password === undefined)
    throw new Pkcs12Error('password_required', `the keystore is protected by a password: give its password (${PASSWORD_HINT})`);
  throw new Pkcs12Error(
    'integrity_failed',
    'the keystore does not decrypt with this password, or was altered since it was written: its integrity MAC does not verify',
  );
}

/** Every SafeBag of the unencrypted ("data") safe contents, and how many encrypted ones were skipped. */
function dataSafeBags(pfx: PFX): { bags: SafeContents['safeBags']; encryptedParts: number } {
  try {
    const safe = AuthenticatedSafe.fromBER((pfx.authSafe.content as asn1js.OctetString).getValue());
    const bags: SafeContents['safeBags'] = [];
    let encryptedParts = 0;
    for (const part of safe.safeContents) {
      if (part.contentType === ContentInfo.ENCRYPTED_DATA) encryptedParts++;
      if (part.contentType !== ContentInfo.DATA) continue;
      if (!(part.content instanceof asn1js.OctetString)) throw new Error('a data part holds no OCTET STRING');
      bags.push(...SafeContents.fromBER(part.content.getValue()).safeBags);
    }
    return { bags, encryptedParts };
  } catch (err) {
    throw new Pkcs12Error('malformed', `the keystore's contents are malformed (${firstLine(err)})`, { cause: err });
  }
}

function keyFromBag(bagId: string, value: unknown, password: string): KeyObject {
  if (bagId === OID.keyBag && value instanceof PrivateKeyInfo) {
    try {
      return createPrivateKey({ key: Buffer.from(value.toSchema().toBER()), format: 'der', type: 'pkcs8' });
    } catch (err) {
      throw new Pkcs12Error('invalid_key', `the keystore's key bag does not hold a valid private key (${firstLine(err)})`, { cause: err });
    }
  }
  if (!(value instanceof PKCS8ShroudedKeyBag)) throw new Pkcs12Error('malformed', 'a key bag has no value');
  try {
    return createPrivateKey({ key: Buffer.from(value.toSchema().toBER()), format: 'der', type: 'pkcs8', passphrase: password });
  } catch (err) {
    throw new Pkcs12Error('invalid_key', `the keystore's private key does not decrypt with this password (${firstLine(err)})`, {
      cause: err,
    });
  }
}

/**
 * The one private key of a PKCS#12 keystore, after its integrity MAC verifies; throws Pkcs12Error
 * with what to do otherwise.
 *
 * What is read: the key bags of the unencrypted ("data") safe contents, which is where OpenSSL, Java
 * keytool, Windows and forge put the private key: a PKCS8ShroudedKeyBag (an EncryptedPrivateKeyInfo)
 * or a plain KeyBag. Certificates (usually in encrypted safe contents) are not needed and not
 * decrypted. A keystore whose key sits only inside encrypted safe contents is refused with the
 * OpenSSL command that converts it.
 */
export async function privateKeyFromPkcs12(der: Buffer, password: string | undefined): Promise<KeyObject> {
  const pfx = parsePfx(der);
  if (!pfx) throw new Pkcs12Error('not_pkcs12', 'not a PKCS#12 keystore');
  await verifyIntegrity(pfx, password);
  const { bags, encryptedParts } = dataSafeBags(pfx);
  // The MAC verified under this password (the empty one when none was given), so the key bag's is the same.
  const keys = bags
    .filter((bag) => bag.bagId === OID.keyBag || bag.bagId === OID.shroudedKeyBag)
    .map((bag) => keyFromBag(bag.bagId, bag.bagValue, password ?? ''));
  if (keys.length === 0) {
    throw new Pkcs12Error(
      'no_private_key',
      encryptedParts > 0
        ? `no private key outside the keystore's encrypted safe contents, which borderd does not read; ${PKCS12_CONVERT_HINT}`
        : 'the keystore holds no private key',
    );
  }
  if (keys.length > 1)
    throw new Pkcs12Error(
      'several_private_keys',
      `the keystore holds ${keys.length} private keys; export the one to import (${PKCS12_CONVERT_HINT})`,
    );
  return keys[0]!;
}

/** The keystore refusal that means a wrong password or an altered file, found in `err` or its causes; undefined for any other error. */
export function keystoreIntegrityFailure(err: unknown): Pkcs12Error | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (e instanceof Pkcs12Error && e.code === 'integrity_failed') return e;
  return undefined;
}

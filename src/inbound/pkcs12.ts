/**
 * The private key inside a PKCS#12 keystore (.p12 / .pfx, RFC 7292), read with node:crypto and a
 * small DER/BER walker: node:crypto has no PKCS#12 parser, and the card network's library reads
 * .p12 files with node-forge, which borderd does not depend on.
 *
 * @module inbound/pkcs12
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';

export class Pkcs12Error extends Error {
  override name = 'Pkcs12Error';
}

const PKCS12_CONVERT_HINT = 'convert it with `openssl pkcs12 -in keystore.p12 -nocerts -nodes -out key.pem` and import key.pem';

interface Tlv {
  tag: number;
  start: number;
  contentStart: number;
  contentEnd: number;
  end: number;
  /** Levels above this value in the buffer it was read from (0 for the outermost). */
  depth: number;
}

/**
 * How deep the walker follows nested values. Real keystores nest fewer than ~20 levels (PFX, safe,
 * bag, EncryptedPrivateKeyInfo, PBES2 parameters); the walker recurses once per level (indefinite
 * lengths, split OCTET STRINGs), so without a bound a few hundred kilobytes of `30 80` overflow the
 * call stack. 64 is generous for any writer and far below where the stack runs out.
 */
const MAX_DEPTH = 64;

/**
 * The value at `pos`, which must end by `limit`: the end of its parent's content, so a child cannot
 * overrun its parent, or the end of the buffer for the outermost value.
 */
function readTlv(buf: Buffer, pos: number, limit = buf.length, depth = 0): Tlv {
  if (depth > MAX_DEPTH) throw new Pkcs12Error(`ASN.1 nested more than ${MAX_DEPTH} levels deep`);
  if (pos + 2 > limit) throw new Pkcs12Error('truncated ASN.1');
  const tag = buf[pos]!;
  if ((tag & 0x1f) === 0x1f) throw new Pkcs12Error('unsupported ASN.1 tag');
  const first = buf[pos + 1]!;
  let offset = pos + 2;
  if (first === 0x80) {
    // BER indefinite length (some keystore writers use it): children up to an end-of-contents marker
    // (00 00, read as a value like any other, so a missing marker is the header check above).
    if (!(tag & 0x20)) throw new Pkcs12Error('indefinite length on a primitive value');
    for (let p = offset; ;) {
      const child = readTlv(buf, p, limit, depth + 1);
      if (child.tag === 0 && child.end === p + 2) return { tag, start: pos, contentStart: offset, contentEnd: p, end: child.end, depth };
      p = child.end;
    }
  }
  let length = first;
  if (first & 0x80) {
    const n = first & 0x7f;
    if (n > 4) throw new Pkcs12Error('ASN.1 length too large');
    if (offset + n > limit) throw new Pkcs12Error('truncated ASN.1');
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + buf[offset++]!;
  }
  if (offset + length > limit) throw new Pkcs12Error('truncated ASN.1');
  return { tag, start: pos, contentStart: offset, contentEnd: offset + length, end: offset + length, depth };
}

function children(buf: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let p = parent.contentStart; p < parent.contentEnd;) {
    const child = readTlv(buf, p, parent.contentEnd, parent.depth + 1);
    out.push(child);
    p = child.end;
  }
  return out;
}

/** An OCTET STRING's bytes; BER may split it into a constructed string of pieces. */
function octets(buf: Buffer, t: Tlv): Buffer {
  if (t.tag === 0x04) return buf.subarray(t.contentStart, t.contentEnd);
  if (t.tag === 0x24) return Buffer.concat(children(buf, t).map((c) => octets(buf, c)));
  throw new Pkcs12Error('expected an OCTET STRING');
}

const SEQUENCE = 0x30;
const CONTEXT_0 = 0xa0;
const OID = {
  data: '2a864886f70d010701',
  encryptedData: '2a864886f70d010706',
  keyBag: '2a864886f70d010c0a0101',
  shroudedKeyBag: '2a864886f70d010c0a0102',
} as const;

const oidHex = (buf: Buffer, t: Tlv | undefined): string | undefined =>
  t && t.tag === 0x06 ? buf.subarray(t.contentStart, t.contentEnd).toString('hex') : undefined;

/** ContentInfo { contentType, [0] content } -> [type hex, explicit content]. */
function contentInfo(buf: Buffer, t: Tlv): [string | undefined, Tlv | undefined] {
  if (t.tag !== SEQUENCE) throw new Pkcs12Error('expected a ContentInfo');
  const [type, explicit] = children(buf, t);
  const inner = explicit && explicit.tag === CONTEXT_0 ? children(buf, explicit)[0] : undefined;
  return [oidHex(buf, type), inner];
}

/** The PFX's authenticated safe (password-integrity mode), or undefined when `der` is not a PKCS#12 PFX. */
function authenticatedSafe(der: Buffer): Buffer | undefined {
  try {
    const pfx = readTlv(der, 0);
    if (pfx.tag !== SEQUENCE || pfx.end !== der.length) return undefined;
    const [version, authSafe] = children(der, pfx);
    if (!version || version.tag !== 0x02 || version.contentEnd - version.contentStart !== 1 || der[version.contentStart] !== 3 || !authSafe)
      return undefined;
    const [type, content] = contentInfo(der, authSafe);
    if (type !== OID.data || !content) return undefined;
    return octets(der, content);
  } catch {
    return undefined;
  }
}

/** True when the bytes are a PKCS#12 keystore (PFX version 3 with data content). */
export function isPkcs12(der: Buffer): boolean {
  return authenticatedSafe(der) !== undefined;
}

/**
 * The one private key of a PKCS#12 keystore; throws Pkcs12Error with what to do otherwise.
 *
 * What is read: the key bags of the unencrypted ("data") safe contents, which is where OpenSSL, Java
 * keytool, Windows and forge put the private key: a PKCS8ShroudedKeyBag (an EncryptedPrivateKeyInfo,
 * decrypted by node:crypto with the keystore password: PBES2/PBKDF2/AES or the legacy PKCS#12
 * SHA1-3DES scheme) or a plain KeyBag. Certificates (usually in encrypted safe contents) are not
 * needed and not decrypted. The integrity MAC is not verified; a wrong password fails when the key
 * bag is decrypted. A keystore whose key sits only inside encrypted safe contents is refused with
 * the OpenSSL command that converts it.
 */
export function privateKeyFromPkcs12(der: Buffer, password: string | undefined): KeyObject {
  const safe = authenticatedSafe(der);
  if (!safe) throw new Pkcs12Error('not a PKCS#12 keystore');
  const keys: KeyObject[] = [];
  let encryptedParts = 0;
  const top = readTlv(safe, 0);
  for (const part of children(safe, top)) {
    const [type, content] = contentInfo(safe, part);
    if (type === OID.encryptedData) {
      encryptedParts++;
      continue;
    }
    if (type !== OID.data || !content) continue;
    const contents = octets(safe, content);
    for (const bag of children(contents, readTlv(contents, 0))) {
      const [bagId, value] = children(contents, bag);
      const id = oidHex(contents, bagId);
      if (id !== OID.keyBag && id !== OID.shroudedKeyBag) continue;
      const inner = value && value.tag === CONTEXT_0 ? children(contents, value)[0] : undefined;
      if (!inner) throw new Pkcs12Error('a key bag has no value');
      const keyDer = contents.subarray(inner.start, inner.end);
      if (id === OID.keyBag) {
        try {
          keys.push(createPrivateKey({ key: keyDer, format: 'der', type: 'pkcs8' }));
        } catch (err) {
          throw new Pkcs12Error(`the keystore's key bag does not hold a valid private key (${(err as Error).message.split('\n')[0]})`, {
            cause: err,
          });
        }
        continue;
      }
      if (password === undefined)
        throw new Pkcs12Error("the keystore's private key is encrypted: give its password (--keystore-password or BORDERD_KEY_PASSPHRASE)");
      try {
        keys.push(createPrivateKey({ key: keyDer, format: 'der', type: 'pkcs8', passphrase: password }));
      } catch (err) {
        throw new Pkcs12Error(`the keystore's private key does not decrypt with this password (${(err as Error).message.split('\n')[0]})`, {
          cause: err,
        });
      }
    }
  }
  if (keys.length === 0) {
    throw new Pkcs12Error(
      encryptedParts > 0
        ? `no private key outside the keystore's encrypted safe contents, which borderd does not read; ${PKCS12_CONVERT_HINT}`
        : 'the keystore holds no private key',
    );
  }
  if (keys.length > 1)
    throw new Pkcs12Error(`the keystore holds ${keys.length} private keys; export the one to import (${PKCS12_CONVERT_HINT})`);
  return keys[0]!;
}

import { generateKeyPairSync } from 'node:crypto';
import { getCrypto } from 'pkijs';
import { describe, expect, it } from 'vitest';
import { isPkcs12, MAX_MAC_ITERATIONS, Pkcs12Error, privateKeyFromPkcs12, type Pkcs12ErrorCode } from '../../src/inbound/pkcs12.js';
import { hasOpenssl } from '../support/openssl.js';
import { opensslPkcs12 } from '../support/pkcs12.js';
import { makeKeyPair } from './jwe-fixtures.js';

// Hand-built DER, so each test can put one malformed value exactly where the reader must catch it.
const OID_DATA = Buffer.from('2a864886f70d010701', 'hex');
const OID_KEY_BAG = Buffer.from('2a864886f70d010c0a0101', 'hex');
const OID_SHA256 = Buffer.from('608648016503040201', 'hex');

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const integer = (n: number): Buffer => {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  if (bytes.length === 0 || bytes[0]! & 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
};

/** ContentInfo { data, [0] OCTET STRING content }. */
const dataContentInfo = (content: Buffer): Buffer => tlv(0x30, tlv(0x06, OID_DATA), tlv(0xa0, tlv(0x04, content)));

const SALT = hex('0102030405060708');

/** MacData { DigestInfo { sha256, mac }, salt, iterations }. */
const macData = (mac: Buffer, iterations: number): Buffer =>
  tlv(0x30, tlv(0x30, tlv(0x30, tlv(0x06, OID_SHA256), hex('0500')), tlv(0x04, mac)), tlv(0x04, SALT), integer(iterations));

/**
 * A PFX (version 3, password-integrity mode) whose authenticated safe is `safe`, however malformed,
 * with an HMAC-SHA-256 integrity MAC under `password` made by PKI.js's own derivation: the reader
 * gets past the MAC to the contents, which is what lets these tests reach the parse of the inside.
 */
const arrayBuffer = (b: Buffer): ArrayBuffer => Uint8Array.from(b).buffer;

async function pfxAround(safe: Buffer, password = 'pw', iterations = 2048): Promise<Buffer> {
  const mac = await getCrypto(true).stampDataWithPassword({
    password: new TextEncoder().encode(password).buffer as ArrayBuffer,
    hashAlgorithm: 'SHA-256',
    salt: arrayBuffer(SALT),
    iterationCount: iterations,
    contentToStamp: arrayBuffer(safe),
  });
  return tlv(0x30, hex('020103'), dataContentInfo(safe), macData(Buffer.from(mac), iterations));
}

/** The one ContentInfo of an authenticated safe that holds `pkcs8` in a plain KeyBag. */
const keyBagPart = (pkcs8: Buffer): Buffer => dataContentInfo(tlv(0x30, tlv(0x30, tlv(0x06, OID_KEY_BAG), tlv(0xa0, pkcs8))));
const safeWithKeyBag = (pkcs8: Buffer): Buffer => tlv(0x30, keyBagPart(pkcs8));

/** The reader's refusal of `der` under `password` (null: none given). */
async function refusal(der: Buffer, password: string | null = 'pw'): Promise<{ code: Pkcs12ErrorCode; message: string }> {
  try {
    await privateKeyFromPkcs12(der, password ?? undefined);
  } catch (err) {
    expect(err).toBeInstanceOf(Pkcs12Error);
    return { code: (err as Pkcs12Error).code, message: (err as Error).message };
  }
  throw new Error('expected a Pkcs12Error, but a key was returned');
}

const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
const pkcs8Of = async (der: Buffer, password?: string) =>
  (await privateKeyFromPkcs12(der, password)).export({ type: 'pkcs8', format: 'der' });

describe('PKCS#12 reader: keystores written by OpenSSL', () => {
  const pair = makeKeyPair();
  const expected = pair.privateKey.export({ type: 'pkcs8', format: 'der' });

  it('reads the modern default (PBES2/AES-256 key bag, HMAC-SHA-256 MAC) and -legacy (3DES, HMAC-SHA-1)', async (t) => {
    if (!hasOpenssl()) t.skip();
    expect(await pkcs8Of(opensslPkcs12(pair.privatePem, 'keystore-pw'), 'keystore-pw')).toEqual(expected);
    expect(await pkcs8Of(opensslPkcs12(pair.privatePem, 'keystore-pw', '-legacy'), 'keystore-pw')).toEqual(expected);
    // Non-ASCII passwords: the MAC's key derivation takes the password as a BMPString, as OpenSSL writes it.
    expect(await pkcs8Of(opensslPkcs12(pair.privatePem, 'clé-ü-€'), 'clé-ü-€')).toEqual(expected);
  });

  it('reads a keystore exported with an empty password without one', async (t) => {
    if (!hasOpenssl()) t.skip();
    expect(await pkcs8Of(opensslPkcs12(pair.privatePem, ''))).toEqual(expected);
  });

  it('refuses a wrong password at the integrity MAC, before reading anything', async (t) => {
    if (!hasOpenssl()) t.skip();
    for (const extra of [[], ['-legacy']]) {
      const p12 = opensslPkcs12(pair.privatePem, 'keystore-pw', ...extra);
      expect(await refusal(p12, 'not-it')).toEqual({
        code: 'integrity_failed',
        message: expect.stringMatching(/does not decrypt with this password, or was altered .*integrity MAC does not verify/),
      });
      expect(await refusal(p12, null)).toEqual({ code: 'password_required', message: expect.stringMatching(/--keystore-password/) });
    }
  });

  it('refuses a keystore with one byte altered, in its contents or in its MAC', async (t) => {
    if (!hasOpenssl()) t.skip();
    for (const extra of [[], ['-legacy']]) {
      const p12 = opensslPkcs12(pair.privatePem, 'keystore-pw', ...extra);
      // Both keystores read as they are: the refusals below come from the altered byte alone.
      expect(await pkcs8Of(p12, 'keystore-pw')).toEqual(expected);
      const macAt = p12.lastIndexOf(Buffer.from([0x04, p12.includes(hex('0609608648016503040201')) ? 0x20 : 0x14])) + 2;
      // A byte in the middle of the file lies inside the authenticated safe (the encrypted
      // certificate or key); the one after the MAC's OCTET STRING header is the MAC itself.
      for (const at of [Math.floor(p12.length / 2), macAt]) {
        const altered = Buffer.from(p12);
        altered[at] = altered[at]! ^ 0x01;
        expect(isPkcs12(altered), `byte ${at}`).toBe(true);
        expect(await refusal(altered, 'keystore-pw'), `byte ${at}`).toMatchObject({ code: 'integrity_failed' });
      }
    }
  });

  it('refuses a keystore without an integrity MAC (-nomac)', async (t) => {
    if (!hasOpenssl()) t.skip();
    expect(await refusal(opensslPkcs12(pair.privatePem, 'keystore-pw', '-nomac'), 'keystore-pw')).toEqual({
      code: 'no_integrity',
      message: expect.stringMatching(/no integrity MAC/),
    });
  });
});

describe('PKCS#12 reader: hand-built keystores', () => {
  // The positive control: without it, a malformed-input test could pass because the builder is wrong.
  it('reads the key from a hand-built keystore, in DER and with BER indefinite lengths', async () => {
    expect(await pkcs8Of(await pfxAround(safeWithKeyBag(pkcs8)), 'pw')).toEqual(pkcs8);
    // The same safe with its SEQUENCE in BER indefinite form: 30 80 <children> 00 00.
    expect(await pkcs8Of(await pfxAround(Buffer.concat([hex('3080'), keyBagPart(pkcs8), hex('0000')])), 'pw')).toEqual(pkcs8);
    expect(isPkcs12(await pfxAround(safeWithKeyBag(pkcs8)))).toBe(true);
  });

  it('refuses MAC iteration counts past the bound before deriving anything', async () => {
    const der = tlv(0x30, hex('020103'), dataContentInfo(safeWithKeyBag(pkcs8)), macData(Buffer.alloc(32), MAX_MAC_ITERATIONS + 1));
    expect(await refusal(der)).toEqual({ code: 'unsupported', message: expect.stringMatching(/iterations/) });
  });

  it('answers integrity_failed, not a parse error, for malformed contents under a MAC that does not verify', async () => {
    expect(await refusal(await pfxAround(hex('3085 0100000000'), 'other'))).toMatchObject({ code: 'integrity_failed' });
  });
});

describe('PKCS#12 reader: malformed contents behind a valid MAC', () => {
  // Each is refused with a Pkcs12Error ('malformed' or a missing key), never another error type:
  // asn1js reports what it cannot read, and the reader turns it into one refusal.
  it.each([
    ['a long-form length with more than 4 length bytes', '3085 0100000000'],
    ['long-form length bytes that run past the end', '3082 01'],
    ['a definite length that runs past the end', '3084 ffffffff 3000'],
    ['a header cut short', '30'],
    ['nothing at all', ''],
    ['an indefinite length on a primitive value', '0480 0000'],
    ['an indefinite length without its end-of-contents marker', '3080 3000'],
    ['half an end-of-contents marker', '3080 00'],
    ['nested indefinite lengths with the outer one open', '3080 3080 0000'],
  ])('refuses %s', async (_name, safe) => {
    const { code } = await refusal(await pfxAround(hex(safe)));
    expect(['malformed', 'no_private_key']).toContain(code);
  });

  it('refuses a child that runs past the end of its parent', async () => {
    expect(await refusal(await pfxAround(Buffer.concat([hex('3002'), keyBagPart(pkcs8)])))).toMatchObject({ code: 'malformed' });
  });

  it('refuses deep nesting with a Pkcs12Error, not a stack overflow', async () => {
    const DEEP = 200_000;
    const deep = Buffer.concat([Buffer.alloc(DEEP * 2, hex('3080')), Buffer.alloc(DEEP * 2, 0)]);
    expect(['malformed', 'no_private_key']).toContain((await refusal(await pfxAround(deep))).code);
  });

  it('refuses well-formed DER in a plain KeyBag that is not a private key, keeping the cause', async () => {
    let caught: unknown;
    try {
      await privateKeyFromPkcs12(await pfxAround(safeWithKeyBag(tlv(0x30, hex('020100')))), 'pw');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Pkcs12Error);
    expect((caught as Pkcs12Error).code).toMatch(/^(invalid_key|malformed)$/);
  });
});

describe('isPkcs12', () => {
  it('answers false, without throwing, for garbage and for every truncation of a keystore', async () => {
    const garbage = [
      Buffer.alloc(0),
      hex('30'),
      hex('3080'),
      hex('3085 0100000000'),
      hex('3082 01'),
      hex('0480 0000'),
      hex('1f00'),
      Buffer.from('-----BEGIN PRIVATE KEY-----\n'),
      pkcs8,
      // A deterministic byte soup (no Math.random: a failure must be reproducible).
      Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 167 + 13) & 0xff)),
    ];
    for (const bytes of garbage) expect(isPkcs12(bytes)).toBe(false);

    const keystore = await pfxAround(safeWithKeyBag(pkcs8));
    for (let n = 0; n < keystore.length; n++) {
      const cut = keystore.subarray(0, n);
      expect(isPkcs12(cut), `first ${n} bytes`).toBe(false);
      expect(await refusal(cut), `first ${n} bytes`).toEqual({ code: 'not_pkcs12', message: 'not a PKCS#12 keystore' });
    }
  });
});

import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isPkcs12, Pkcs12Error, privateKeyFromPkcs12 } from '../../src/inbound/pkcs12.js';

// Hand-built DER, so each test can put one malformed value exactly where the walker must catch it.
const OID_DATA = Buffer.from('2a864886f70d010701', 'hex');
const OID_KEY_BAG = Buffer.from('2a864886f70d010c0a0101', 'hex');

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

/** ContentInfo { data, [0] OCTET STRING content }. */
const dataContentInfo = (content: Buffer): Buffer => tlv(0x30, tlv(0x06, OID_DATA), tlv(0xa0, tlv(0x04, content)));

/**
 * A well-formed PFX (version 3, password-integrity mode, no MAC) whose authenticated safe is `safe`,
 * however malformed. Only this outer layer's parse errors are folded into "not a PKCS#12 keystore";
 * errors inside the authenticated safe reach the caller with the walker's own message, which is what
 * lets these tests tell the bounds checks apart through the public function.
 */
const pfxAround = (safe: Buffer): Buffer => tlv(0x30, hex('020103'), dataContentInfo(safe));

/** The one ContentInfo of an authenticated safe that holds `pkcs8` in a plain KeyBag. */
const keyBagPart = (pkcs8: Buffer): Buffer => dataContentInfo(tlv(0x30, tlv(0x30, tlv(0x06, OID_KEY_BAG), tlv(0xa0, pkcs8))));
const safeWithKeyBag = (pkcs8: Buffer): Buffer => tlv(0x30, keyBagPart(pkcs8));

function refusal(der: Buffer): string {
  try {
    privateKeyFromPkcs12(der, 'pw');
  } catch (err) {
    expect(err).toBeInstanceOf(Pkcs12Error);
    return (err as Error).message;
  }
  throw new Error('expected a Pkcs12Error, but a key was returned');
}

const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });

describe('PKCS#12 reader: hand-built keystores', () => {
  // The positive control: without it, a malformed-input test could pass because the builder is wrong.
  it('reads the key from a hand-built keystore, in DER and with BER indefinite lengths', () => {
    const read = (der: Buffer) => privateKeyFromPkcs12(der, undefined).export({ type: 'pkcs8', format: 'der' });
    expect(read(pfxAround(safeWithKeyBag(pkcs8)))).toEqual(pkcs8);
    // The same safe with its SEQUENCE in BER indefinite form: 30 80 <children> 00 00.
    expect(read(pfxAround(Buffer.concat([hex('3080'), keyBagPart(pkcs8), hex('0000')])))).toEqual(pkcs8);
    expect(isPkcs12(pfxAround(safeWithKeyBag(pkcs8)))).toBe(true);
  });
});

// Each case says what the walker does without the check it covers: a different message, so removing
// or weakening the check fails the test instead of passing unnoticed.
describe('PKCS#12 reader: ASN.1 bounds checks', () => {
  it('refuses a long-form length with more than 4 length bytes', () => {
    // Without the check the 5 bytes are read as a length of 2^32, which is then reported as truncated.
    expect(refusal(pfxAround(hex('3085 0100000000')))).toBe('ASN.1 length too large');
    // 0xff: 127 length bytes announced; without the check they run past the buffer ("truncated").
    expect(refusal(pfxAround(hex('30ff 00')))).toBe('ASN.1 length too large');
  });

  it('refuses long-form length bytes that run past the end', () => {
    // Without the check the missing bytes read as undefined, the length becomes NaN, every bound
    // comparison is false and the walker carries on to "the keystore holds no private key".
    expect(refusal(pfxAround(hex('3082 01')))).toBe('truncated ASN.1');
    expect(refusal(pfxAround(hex('3084 ffffff')))).toBe('truncated ASN.1');
  });

  it('refuses a definite length that runs past the end', () => {
    // An OCTET STRING announcing 16 bytes with 2 present (an empty SEQUENCE), its parents consistent.
    // Without the check the slice is silently clamped to those 2 bytes and the reader goes on to
    // "the keystore holds no private key" instead of saying the input is cut short.
    const truncatedOctets = tlv(0x30, tlv(0x30, tlv(0x06, OID_DATA), tlv(0xa0, hex('0410 3000'))));
    expect(refusal(pfxAround(truncatedOctets))).toBe('truncated ASN.1');
    // A 4-byte length near 2^32 is refused the same way (no allocation of that size is attempted).
    expect(refusal(pfxAround(hex('3084 ffffffff 3000')))).toBe('truncated ASN.1');
  });

  it('refuses a header cut short (fewer than 2 bytes left)', () => {
    // Without the check tag 0x30 with an undefined length byte gives NaN bounds -> "holds no private key".
    expect(refusal(pfxAround(hex('30')))).toBe('truncated ASN.1');
    expect(refusal(pfxAround(Buffer.alloc(0)))).toBe('truncated ASN.1');
  });

  it('refuses an indefinite length on a primitive value', () => {
    // Without the check 04 80 00 00 parses as an empty value and the reader answers "holds no private key".
    expect(refusal(pfxAround(hex('0480 0000')))).toBe('indefinite length on a primitive value');
  });

  it('refuses a high-tag-number tag', () => {
    // Without the check 1f 00 parses as an empty value -> "holds no private key".
    expect(refusal(pfxAround(hex('1f00')))).toBe('unsupported ASN.1 tag');
  });

  it('refuses an indefinite length without its end-of-contents marker, and does not hang', () => {
    // A complete child (30 00) and then the end of the buffer where 00 00 should be.
    expect(refusal(pfxAround(hex('3080 3000')))).toBe('truncated ASN.1');
    // Nothing at all after the header.
    expect(refusal(pfxAround(hex('3080')))).toBe('truncated ASN.1');
    // Half a marker: the end-of-contents loop hands the last byte to readTlv, and it is readTlv's
    // header check that stops it. Without that check this case never returns (the position becomes
    // NaN), which vitest cannot time out: the run hangs here rather than passing.
    expect(refusal(pfxAround(hex('3080 00')))).toBe('truncated ASN.1');
    // Nested: the inner value is closed, the outer one is not.
    expect(refusal(pfxAround(hex('3080 3080 0000')))).toBe('truncated ASN.1');
  });

  it('ends an indefinite length only at 00 00, not at another empty value with tag 0', () => {
    // 00 81 00 is tag 0 with a long-form zero length: a child like any other, so the safe's one part is
    // not a ContentInfo. Taken as the end marker, the safe would be empty ("holds no private key").
    expect(refusal(pfxAround(hex('3080 008100 0000')))).toBe('expected a ContentInfo');
  });
});

/** `depth` copies of `tag` nested with definite lengths around `inner`, built inside out in one pass. */
function nestDefinite(tag: number, depth: number, inner: Buffer): Buffer {
  const headers: Buffer[] = [];
  let length = inner.length;
  for (let i = 0; i < depth; i++) {
    const header = Buffer.concat([Buffer.from([tag]), derLength(length)]);
    headers.push(header);
    length += header.length;
  }
  return Buffer.concat([...headers.reverse(), inner]);
}

describe('PKCS#12 reader: nesting depth', () => {
  // 200,000 levels: far past what the call stack holds, so without the limit each case below is a
  // RangeError (stack overflow) from the recursion, not a Pkcs12Error.
  const DEEP = 200_000;

  it('refuses deeply nested indefinite lengths inside the authenticated safe', () => {
    // Well formed apart from its depth: every 30 80 has its 00 00.
    const deep = Buffer.concat([Buffer.alloc(DEEP * 2, hex('3080')), Buffer.alloc(DEEP * 2, 0)]);
    expect(refusal(pfxAround(deep))).toMatch(/^ASN\.1 nested more than \d+ levels deep$/);
  });

  it('refuses a deeply nested split (constructed) OCTET STRING, with definite lengths', () => {
    // The data part's content as 24 <len> 24 <len> ... 04 00: octets() recurses once per level.
    const part = tlv(0x30, tlv(0x06, OID_DATA), tlv(0xa0, nestDefinite(0x24, DEEP, hex('0400'))));
    expect(refusal(pfxAround(tlv(0x30, part)))).toMatch(/^ASN\.1 nested more than \d+ levels deep$/);
  });

  it('reads deeply nested definite-length values only as far as it needs them', () => {
    // Definite lengths are not descended into by readTlv, only by the fixed steps of the reader, so
    // this never recursed; kept as a guard that it stays that way.
    expect(refusal(pfxAround(tlv(0x30, nestDefinite(0x30, DEEP, Buffer.alloc(0)))))).toBe('the keystore holds no private key');
  });
});

describe('PKCS#12 reader: a value must end inside its parent', () => {
  it('refuses a child that runs past the end of its parent, though not past the buffer', () => {
    // The safe's SEQUENCE announces 2 bytes of content; its ContentInfo child runs past them to the
    // end of the buffer. Without the check the key is read as if the SEQUENCE length were right.
    const part = keyBagPart(pkcs8);
    expect(refusal(pfxAround(Buffer.concat([hex('3002'), part])))).toBe('truncated ASN.1');
  });

  it('refuses an indefinite-length value whose end-of-contents marker lies past its parent', () => {
    // A 2-byte SEQUENCE holding 30 80 30 00 ...: the inner value's children and marker are after the
    // parent's end. Without the check the scan for 00 00 leaves the parent and the child is accepted.
    expect(refusal(pfxAround(Buffer.concat([hex('3002 3080'), keyBagPart(pkcs8), hex('0000')])))).toBe('truncated ASN.1');
  });
});

describe('PKCS#12 reader: a plain KeyBag that is not a key', () => {
  it('refuses well-formed DER that is not a private key with a Pkcs12Error, keeping the cause', () => {
    const notAKey = tlv(0x30, hex('020100'));
    let caught: unknown;
    try {
      privateKeyFromPkcs12(pfxAround(safeWithKeyBag(notAKey)), undefined);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Pkcs12Error);
    expect((caught as Error).message).toMatch(/^the keystore's key bag does not hold a valid private key \(.+\)$/);
    // The original node:crypto error, for whoever needs its code.
    expect((caught as Error).cause).toBeInstanceOf(Error);
    expect((caught as Error).cause).not.toBeInstanceOf(Pkcs12Error);
  });
});

describe('isPkcs12', () => {
  it('answers false, without throwing, for garbage and for every truncation of a keystore', () => {
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

    const keystore = pfxAround(safeWithKeyBag(pkcs8));
    for (let n = 0; n < keystore.length; n++) {
      const cut = keystore.subarray(0, n);
      expect(isPkcs12(cut), `first ${n} bytes`).toBe(false);
      expect(refusal(cut), `first ${n} bytes`).toBe('not a PKCS#12 keystore');
    }
  });

  it('answers false when the authenticated safe announces more bytes than the file has', () => {
    // The PFX and ContentInfo lengths are consistent; only the OCTET STRING inside runs past the end.
    // Without the definite-length check its slice would be clamped and this would read as a keystore.
    const overrun = tlv(0x30, hex('020103'), tlv(0x30, tlv(0x06, OID_DATA), tlv(0xa0, hex('0440 3000'))));
    expect(isPkcs12(overrun)).toBe(false);
  });
});

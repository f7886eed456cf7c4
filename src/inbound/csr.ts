/**
 * A PKCS#10 certificate signing request (RFC 2986) built with node:crypto and a few lines of DER,
 * so generating a card-network key needs no OpenSSL binary and no extra dependency. The card
 * network's key-management portal takes this CSR and returns the encryption certificate its
 * senders use.
 *
 * @module inbound/csr
 */
import { createPublicKey, sign, type KeyObject } from 'node:crypto';

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, content: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const chunk: number[] = [];
    let v = arc;
    do {
      chunk.unshift((v & 0x7f) | (chunk.length ? 0x80 : 0));
      v = Math.floor(v / 128);
    } while (v > 0);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

const ATTRIBUTE_OIDS = { CN: '2.5.4.3', O: '2.5.4.10', OU: '2.5.4.11', C: '2.5.4.6' } as const;
export type SubjectAttribute = keyof typeof ATTRIBUTE_OIDS;

function name(subject: Partial<Record<SubjectAttribute, string>>): Buffer {
  const rdns = (Object.keys(ATTRIBUTE_OIDS) as SubjectAttribute[])
    .filter((k) => subject[k])
    .map((k) =>
      set(
        sequence(
          oid(ATTRIBUTE_OIDS[k]),
          k === 'C' ? tlv(0x13, Buffer.from(subject[k]!, 'ascii')) : tlv(0x0c, Buffer.from(subject[k]!, 'utf8')),
        ),
      ),
    );
  return sequence(...rdns);
}

/** PEM of a CSR for the key pair, signed SHA256withRSA with its private key. */
export function buildCsrPem(privateKey: KeyObject, subject: Partial<Record<SubjectAttribute, string>>): string {
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const info = sequence(tlv(0x02, Buffer.from([0])), name(subject), spki, Buffer.from([0xa0, 0x00]));
  const algorithm = sequence(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));
  const signature = tlv(0x03, Buffer.concat([Buffer.from([0]), sign('sha256', info, privateKey)]));
  const der = sequence(info, algorithm, signature);
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return ['-----BEGIN CERTIFICATE REQUEST-----', ...lines, '-----END CERTIFICATE REQUEST-----', ''].join('\n');
}

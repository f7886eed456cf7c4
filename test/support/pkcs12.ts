import { createRequire } from 'node:module';

// Why: the keyring and CLI tests both need a real .p12 keystore around a test key; one builder, one typing of node-forge.
const require = createRequire(import.meta.url);
const forge = require('node-forge') as {
  pki: { privateKeyFromPem(pem: string): unknown };
  pkcs12: { toPkcs12Asn1(key: unknown, certs: null, password: string | null, opts: { algorithm: string }): unknown };
  asn1: { toDer(asn1: unknown): { getBytes(): string } };
};

/** A PKCS#12 keystore (DER bytes) holding only `privatePem`, its key bag encrypted by node-forge with `algorithm` under `password`. */
export function pkcs12FromPem(privatePem: string, password: string | null, algorithm: '3des' | 'aes256' | 'aes128' = 'aes256'): Buffer {
  const p12 = forge.pkcs12.toPkcs12Asn1(forge.pki.privateKeyFromPem(privatePem), null, password, { algorithm });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * A PKCS#12 keystore (DER bytes) written by `openssl pkcs12 -export` around `privatePem` and a
 * self-signed certificate for it, under `password`; `extra` adds options (`-legacy`, `-nomac`, …).
 */
export function opensslPkcs12(privatePem: string, password: string, ...extra: string[]): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'borderd-p12-'));
  try {
    writeFileSync(join(dir, 'k.pem'), privatePem);
    execFileSync(
      'openssl',
      ['req', '-new', '-x509', '-key', join(dir, 'k.pem'), '-subj', '/CN=card-network', '-days', '1', '-out', join(dir, 'c.pem')],
      {
        stdio: 'ignore',
      },
    );
    execFileSync(
      'openssl',
      [
        'pkcs12',
        '-export',
        '-inkey',
        join(dir, 'k.pem'),
        '-in',
        join(dir, 'c.pem'),
        '-passout',
        `pass:${password}`,
        '-out',
        join(dir, 'k.p12'),
        ...extra,
      ],
      { stdio: 'ignore' },
    );
    return readFileSync(join(dir, 'k.p12'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

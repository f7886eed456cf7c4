import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CertificationRequest } from 'pkijs';
import { describe, expect, it } from 'vitest';
import { buildCsrPem } from '../../src/inbound/csr.js';
import { tempDir } from '../support/context.js';
import { hasOpenssl } from '../support/openssl.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const subject = { CN: 'acme-notifications', O: 'Acme Ltd', OU: 'Zahlungsverkehr Süd', C: 'DE' };

const der = (pem: string): Buffer => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');

function opensslReq(args: string[], pem: string): string {
  const file = join(tempDir(), 'k.csr');
  writeFileSync(file, pem);
  return execFileSync('openssl', ['req', '-in', file, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('buildCsrPem', () => {
  it('writes, byte for byte, the request `openssl req -new -sha256` writes for the same key and subject', async (t) => {
    if (!hasOpenssl()) t.skip();
    const dir = tempDir();
    writeFileSync(join(dir, 'k.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    // RSASSA-PKCS1-v1_5 signatures are deterministic, so the whole request is a known answer.
    const reference = execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-key',
        join(dir, 'k.pem'),
        '-utf8',
        '-subj',
        '/CN=acme-notifications/O=Acme Ltd/OU=Zahlungsverkehr Süd/C=DE',
        '-sha256',
      ],
      { encoding: 'utf8' },
    );
    expect(await buildCsrPem(privateKey, subject)).toBe(reference);
  });

  it('is a request OpenSSL verifies, naming the subject and the key', async (t) => {
    if (!hasOpenssl()) t.skip();
    const pem = await buildCsrPem(privateKey, subject);
    expect(opensslReq(['-noout', '-verify', '-subject', '-nameopt', 'RFC2253,-esc_msb'], pem).trim()).toBe(
      'subject=C=DE,OU=Zahlungsverkehr Süd,O=Acme Ltd,CN=acme-notifications',
    );
    expect(opensslReq(['-noout', '-pubkey'], pem)).toBe(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }));
  });

  it('reads back with PKI.js: the signature verifies, and fails once one signed byte is altered', async () => {
    const bytes = der(await buildCsrPem(privateKey, { CN: 'borderd org_1' }));
    const csr = CertificationRequest.fromBER(bytes);
    expect(await csr.verify()).toBe(true);
    expect(csr.subject.typesAndValues.map((tv) => [tv.type, tv.value.valueBlock.value])).toEqual([['2.5.4.3', 'borderd org_1']]);
    expect(Buffer.from(csr.subjectPublicKeyInfo.toSchema().toBER())).toEqual(
      createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
    );
    // The last byte of the common name, inside the signed part.
    const altered = Buffer.from(bytes);
    const at = altered.indexOf(Buffer.from('borderd org_1')) + 12;
    altered[at] = altered[at]! ^ 0x01;
    expect(await CertificationRequest.fromBER(altered).verify()).toBe(false);
  });
});

/**
 * A PKCS#10 certificate signing request (RFC 2986) for a card-network key, built and signed by
 * PKI.js (the family that reads keystores in pkcs12.ts), so generating a key needs no OpenSSL
 * binary. The card network's key-management portal takes this CSR and returns the encryption
 * certificate its senders use.
 *
 * @module inbound/csr
 */
import { createPublicKey, webcrypto, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import { AttributeTypeAndValue, CertificationRequest, PublicKeyInfo, RelativeDistinguishedNames } from 'pkijs';

const ATTRIBUTE_OIDS = { CN: '2.5.4.3', O: '2.5.4.10', OU: '2.5.4.11', C: '2.5.4.6' } as const;
export type SubjectAttribute = keyof typeof ATTRIBUTE_OIDS;

/** PEM of a CSR for the RSA key pair, signed SHA256withRSA with its private key. */
export async function buildCsrPem(privateKey: KeyObject, subject: Partial<Record<SubjectAttribute, string>>): Promise<string> {
  const csr = new CertificationRequest();
  csr.version = 0;
  // One RDN per attribute (PKI.js would put a flat list into one multi-valued RDN), CN first, each a
  // UTF8String but the country (a PrintableString): the name `openssl req -subj /CN=…/O=…` writes.
  const rdns = (Object.keys(ATTRIBUTE_OIDS) as SubjectAttribute[])
    .filter((k) => subject[k])
    .map((k) => {
      const value = subject[k]!;
      const attribute = new AttributeTypeAndValue({
        type: ATTRIBUTE_OIDS[k],
        value: k === 'C' ? new asn1js.PrintableString({ value }) : new asn1js.Utf8String({ value }),
      });
      return new asn1js.Set({ value: [attribute.toSchema()] });
    });
  csr.subject = RelativeDistinguishedNames.fromBER(new asn1js.Sequence({ value: rdns }).toBER());
  // RFC 2986 requires the attributes field, empty here ([0] with no content).
  csr.attributes = [];
  csr.subjectPublicKeyInfo = PublicKeyInfo.fromBER(createPublicKey(privateKey).export({ type: 'spki', format: 'der' }));
  const signingKey = await webcrypto.subtle.importKey(
    'pkcs8',
    privateKey.export({ type: 'pkcs8', format: 'der' }),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  // node:crypto's CryptoKey is the Web Crypto one PKI.js signs with; only the type names differ.
  await csr.sign(signingKey as unknown as Parameters<CertificationRequest['sign']>[0], 'SHA-256');
  // sha256WithRSAEncryption carries NULL parameters (RFC 4055); the algorithm sits outside the signed part.
  csr.signatureAlgorithm.algorithmParams = new asn1js.Null();
  const der = Buffer.from(csr.toSchema().toBER());
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return ['-----BEGIN CERTIFICATE REQUEST-----', ...lines, '-----END CERTIFICATE REQUEST-----', ''].join('\n');
}

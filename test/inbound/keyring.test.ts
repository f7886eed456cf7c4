import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config/load.js';
import { createOrganization } from '../../src/services/organizations.js';
import { generateCardNetworkKey, importCardNetworkKey, listKeys, privateKeyFor, removeCardNetworkKey } from '../../src/inbound/keyring.js';
import { createContext } from '../../src/create-context.js';
import { keysWithKid } from '../../src/store/card-network-keys.js';
import { makeContext, tempDir } from '../support/context.js';
import { opensslPkcs12, pkcs12FromPem } from '../support/pkcs12.js';
import { hasOpenssl } from '../support/openssl.js';
import { countUnseals } from '../support/unseal-counter.js';
import { makeKeyPair, selfSignedCertificate } from './jwe-fixtures.js';

const require = createRequire(import.meta.url);

describe('card-network keyring', () => {
  it("computes the kid exactly as the card network's library does", async () => {
    const pair = makeKeyPair();
    const certFile = selfSignedCertificate(pair, tempDir());
    const { EncryptionUtils } = require('mastercard-client-encryption') as {
      EncryptionUtils: { readPublicCertificate(f: string): unknown; publicKeyFingerprint(cert: unknown): string };
    };
    const libraryKid = EncryptionUtils.publicKeyFingerprint(EncryptionUtils.readPublicCertificate(certFile));
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    expect((await importCardNetworkKey(ctx, org.id, Buffer.from(pair.privatePem))).kid).toBe(libraryKid);
  });

  it('holds several keys per organization and scopes lookups by organization', async () => {
    const ctx = await makeContext();
    const a = await createOrganization(ctx, 'A');
    const b = await createOrganization(ctx, 'B');
    const k1 = await generateCardNetworkKey(ctx, a.id);
    const k2 = await generateCardNetworkKey(ctx, a.id, { bits: 3072 });
    expect(k2.bits).toBe(3072);
    expect((await listKeys(ctx, a.id)).map((k) => k.kid).sort()).toEqual([k1.kid, k2.kid].sort());
    expect(await privateKeyFor(ctx, a.id, k1.kid)).toBeDefined();
    expect(await privateKeyFor(ctx, a.id, k1.kid.toUpperCase())).toBeDefined();
    expect(await privateKeyFor(ctx, b.id, k1.kid)).toBeUndefined();
    const [stored, ...others] = await keysWithKid(ctx.db, k1.kid);
    expect(others).toEqual([]);
    expect(stored!.privateEnc).toMatch(/^v1\./);
    expect(stored!.privateEnc).not.toContain('PRIVATE KEY');
    await removeCardNetworkKey(ctx, k1.kid);
    expect((await listKeys(ctx)).map((k) => k.kid)).toEqual([k2.kid]);
  });

  it('imports PKCS#1 PEM and PKCS#8 DER; refuses junk, small keys, duplicates, unknown orgs', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const pair = makeKeyPair();
    const pkcs1 = pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect((await importCardNetworkKey(ctx, org.id, Buffer.from(pkcs1))).kid).toBe(pair.kid);
    const other = makeKeyPair();
    expect((await importCardNetworkKey(ctx, org.id, other.privateKey.export({ type: 'pkcs8', format: 'der' }))).kid).toBe(other.kid);
    const code = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        return `${(err as { status: number }).status} ${(err as { code: string }).code}`;
      }
      return 'no error';
    };
    expect(await code(() => importCardNetworkKey(ctx, org.id, Buffer.from('not a key')))).toBe('400 invalid_private_key');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(await code(() => importCardNetworkKey(ctx, org.id, Buffer.from(small)))).toBe('400 key_too_small');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(await code(() => importCardNetworkKey(ctx, org.id, Buffer.from(ec)))).toBe('400 unsupported_key');
    expect(await code(() => importCardNetworkKey(ctx, org.id, Buffer.from(pkcs1)))).toBe('409 key_exists');
    expect(await code(() => importCardNetworkKey(ctx, 'org_nope', Buffer.from(pkcs1)))).toBe('404 not_found');
    expect(await code(() => generateCardNetworkKey(ctx, org.id, { bits: 1024 }))).toBe('400 invalid_bits');
    expect(await code(() => removeCardNetworkKey(ctx, 'f'.repeat(64)))).toBe('404 not_found');
  });

  it('caches the unsealed KeyObject per (org, kid) and drops it on remove and re-import', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const unseals = countUnseals(ctx);
    const first = makeKeyPair();
    await importCardNetworkKey(ctx, org.id, Buffer.from(first.privatePem), { kid: 'portal-key-1' });
    const a = (await privateKeyFor(ctx, org.id, 'portal-key-1'))!;
    expect(await privateKeyFor(ctx, org.id, 'portal-key-1')).toBe(a);
    expect(await privateKeyFor(ctx, org.id, 'portal-key-1')).toBe(a);
    expect(unseals.count).toBe(1);
    expect(a.export({ type: 'pkcs8', format: 'pem' })).toBe(first.privatePem);

    await removeCardNetworkKey(ctx, 'portal-key-1', org.id);
    expect(await privateKeyFor(ctx, org.id, 'portal-key-1')).toBeUndefined();
    const second = makeKeyPair();
    await importCardNetworkKey(ctx, org.id, Buffer.from(second.privatePem), { kid: 'portal-key-1' });
    const b = (await privateKeyFor(ctx, org.id, 'portal-key-1'))!;
    expect(b.export({ type: 'pkcs8', format: 'pem' })).toBe(second.privatePem);
    expect(unseals.count).toBe(2);
  });

  it('does not use a cached key another process removed or replaced', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    const first = makeKeyPair();
    await importCardNetworkKey(ctx, org.id, Buffer.from(first.privatePem), { kid: 'portal-key-1' });
    expect((await privateKeyFor(ctx, org.id, 'portal-key-1'))!.export({ type: 'pkcs8', format: 'pem' })).toBe(first.privatePem);
    // A CLI command is another process with its own connection (and so its own cache).
    const cli = await createContext(ctx.config, { log: ctx.log, clock: ctx.clock });
    try {
      // Replaced while this process still holds the old key in its cache.
      await removeCardNetworkKey(cli, 'portal-key-1', org.id);
      const second = makeKeyPair();
      await importCardNetworkKey(cli, org.id, Buffer.from(second.privatePem), { kid: 'portal-key-1' });
      expect((await privateKeyFor(ctx, org.id, 'portal-key-1'))!.export({ type: 'pkcs8', format: 'pem' })).toBe(second.privatePem);
      // Removed.
      await removeCardNetworkKey(cli, 'portal-key-1', org.id);
      expect(await privateKeyFor(ctx, org.id, 'portal-key-1')).toBeUndefined();
    } finally {
      await cli.db.close();
    }
  });

  describe('import formats', () => {
    const pair = makeKeyPair();
    const exportAs = (type: 'pkcs1' | 'pkcs8', format: 'pem' | 'der', cipher?: string) =>
      Buffer.from(
        pair.privateKey.export({ type, format, ...(cipher ? { cipher, passphrase: 'correct horse' } : {}) } as never) as Buffer | string,
      );
    const imported = async (bytes: Buffer, passphrase?: string) => {
      const ctx = await makeContext();
      const org = await createOrganization(ctx, 'Acme');
      const view = await importCardNetworkKey(ctx, org.id, bytes, passphrase === undefined ? {} : { passphrase });
      expect(view.kid).toBe(pair.kid);
      // The stored key is the same key: it decrypts for its kid.
      expect((await privateKeyFor(ctx, org.id, pair.kid))!.export({ type: 'pkcs8', format: 'pem' })).toBe(pair.privatePem);
      return view;
    };
    const refused = async (bytes: Buffer, passphrase?: string) => {
      const ctx = await makeContext();
      const org = await createOrganization(ctx, 'Acme');
      try {
        await importCardNetworkKey(ctx, org.id, bytes, passphrase === undefined ? {} : { passphrase });
      } catch (err) {
        expect((err as { code: string }).code).toBe('invalid_private_key');
        return (err as Error).message;
      }
      throw new Error('expected the import to be refused');
    };

    it('PEM PKCS#1, PEM PKCS#8, encrypted PEM PKCS#8', async () => {
      await imported(exportAs('pkcs1', 'pem'));
      await imported(exportAs('pkcs8', 'pem'));
      await imported(exportAs('pkcs8', 'pem', 'aes-256-cbc'), 'correct horse');
      expect(await refused(exportAs('pkcs8', 'pem', 'aes-256-cbc'), 'wrong')).toMatch(/readable private key/);
    });

    it('DER PKCS#1, DER PKCS#8, encrypted DER PKCS#8', async () => {
      await imported(exportAs('pkcs1', 'der'));
      await imported(exportAs('pkcs8', 'der'));
      await imported(exportAs('pkcs8', 'der', 'aes-256-cbc'), 'correct horse');
    });

    it('a PEM certificate or public key alone is refused with the reason', async () => {
      expect(await refused(Buffer.from(pair.publicKey.export({ type: 'spki', format: 'pem' }) as string))).toMatch(/no private key/);
    });

    const forgeP12 = (algorithm: '3des' | 'aes256' | 'aes128', password: string | null) =>
      pkcs12FromPem(pair.privatePem, password, algorithm);

    for (const algorithm of ['3des', 'aes256', 'aes128'] as const) {
      it(`PKCS#12 from node-forge (${algorithm}), with its password`, async () => {
        await imported(forgeP12(algorithm, 'keystore-pw'), 'keystore-pw');
        expect(await refused(forgeP12(algorithm, 'keystore-pw'), 'not-it')).toMatch(/does not decrypt with this password/);
        expect(await refused(forgeP12(algorithm, 'keystore-pw'))).toMatch(/give its password \(--keystore-password/);
      });
    }

    it('PKCS#12 from OpenSSL (default, -legacy, unencrypted key bag); a keystore without a key names the conversion', async (t) => {
      if (!hasOpenssl()) t.skip();
      const p12 = (...extra: string[]) => opensslPkcs12(pair.privatePem, 'keystore-pw', ...extra);
      await imported(p12(), 'keystore-pw');
      await imported(p12('-legacy'), 'keystore-pw');
      // An unencrypted key bag still sits under the integrity MAC, which needs the password.
      await imported(p12('-keypbe', 'NONE', '-certpbe', 'NONE'), 'keystore-pw');
      expect(await refused(p12('-keypbe', 'NONE', '-certpbe', 'NONE'))).toMatch(/give its password \(--keystore-password/);
      expect(await refused(p12('-nokeys'), 'keystore-pw')).toMatch(/openssl pkcs12 -in keystore\.p12 -nocerts -nodes/);
    });
  });

  it('makes a CSR that OpenSSL verifies', async (t) => {
    if (!hasOpenssl()) t.skip();
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme Ltd');
    const key = await generateCardNetworkKey(ctx, org.id, { commonName: 'acme-notifications' });
    const file = join(tempDir(), 'k.csr');
    writeFileSync(file, key.csr);
    const subject = execFileSync('openssl', ['req', '-in', file, '-noout', '-verify', '-subject', '-nameopt', 'RFC2253'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(subject.trim()).toBe('subject=O=Acme Ltd,CN=acme-notifications');
    const pub = execFileSync('openssl', ['req', '-in', file, '-noout', '-pubkey'], { encoding: 'utf8' });
    expect(pub.trim()).toBe(key.publicKey.trim());
  });

  it('config refuses a bad allowlist entry, naming it', () => {
    expect(() => loadConfig({ env: {}, flags: { 'inbound.allowlist': ['10.0.0.0/8', '10.0.0.0/40'] } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: {}, flags: { 'inbound.allowlist': ['example.com'] } })).toThrow(/inbound\.allowlist\.0/);
  });
});

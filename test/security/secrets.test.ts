import { randomBytes } from 'node:crypto';
import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/security/secret-box.js';
import { hashSecret, verifySecret } from '../../src/security/secret-hash.js';
import { resolveMasterKey } from '../../src/security/master-key.js';
import { tempDir } from '../support/context.js';

describe('secrets at rest', () => {
  it('seals and opens, bound to its context', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('private key pem', 'webhook_keys.private:wsk_1');
    expect(sealed).not.toContain('private key pem');
    expect(box.open(sealed, 'webhook_keys.private:wsk_1')).toBe('private key pem');
    expect(() => box.open(sealed, 'webhook_keys.private:wsk_2')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'webhook_keys.private:wsk_1')).toThrow();
  });

  it('refuses a sealed value whose authentication tag was truncated', () => {
    const box = new SecretBox(randomBytes(32));
    const [v, iv, tag, ct] = box.seal('secret', 'ctx').split('.');
    const short = [v, iv, Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url'), ct].join('.');
    expect(() => box.open(short, 'ctx')).toThrow(/truncated authentication tag/);
  });

  it('hashes client secrets with scrypt and verifies only the right one', async () => {
    const hash = await hashSecret('bsk_right');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(hash).not.toContain('bsk_right');
    expect(await verifySecret('bsk_right', hash)).toBe(true);
    expect(await verifySecret('bsk_wrong', hash)).toBe(false);
  });

  it('creates the master key file once, mode 0600, and reads it back', () => {
    const file = join(tempDir(), 'master.key');
    const first = resolveMasterKey({ file });
    expect(first.created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = resolveMasterKey({ file });
    expect(second.created).toBe(false);
    expect(second.key.equals(first.key)).toBe(true);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').length).toBe(32);
  });

  it('prefers a configured master key', () => {
    const configured = randomBytes(32).toString('base64');
    const r = resolveMasterKey({ configured, file: join(tempDir(), 'unused.key') });
    expect(r.key.toString('base64')).toBe(configured);
  });
});

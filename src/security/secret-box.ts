/**
 * AES-256-GCM for secrets at rest. The format is `v1.<iv>.<tag>.<ciphertext>` (base64url) and the
 * caller names a context (e.g. `webhook_keys.private:wsk_…`) that is bound as additional data, so a
 * ciphertext copied into another row or column fails to decrypt instead of being misused.
 *
 * @module security/secret-box
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
    this.#key = key;
  }

  seal(plaintext: string | Buffer, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  openBuffer(sealed: string, context: string): Buffer {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || ct === undefined) {
      throw new Error('sealed value has an unknown format');
    }
    const tagBytes = Buffer.from(tag, 'base64url');
    // GCM accepts truncated tags unless told the length: a 4-byte tag would be far easier to forge.
    if (tagBytes.length !== 16) throw new Error('sealed value has a truncated authentication tag');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]);
  }

  open(sealed: string, context: string): string {
    return this.openBuffer(sealed, context).toString('utf8');
  }
}

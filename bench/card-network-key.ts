import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompactEncrypt } from 'jose';
import { spkiFingerprint } from '../src/inbound/key-fingerprint.js';
import { cli, type BenchDaemon } from './daemon-process.js';

export interface CardNetworkKey {
  privateKey: KeyObject;
  /** A compact JWE of `payload` as the card network sends it: RSA-OAEP-256, A256GCM, kid = SPKI fingerprint. */
  encrypt(payload: unknown): Promise<string>;
}

/** Makes a card-network key pair and imports its private half for `orgId` with the CLI, as an operator would. */
export async function importCardNetworkKey(daemon: BenchDaemon, orgId: string): Promise<CardNetworkKey> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = spkiFingerprint(publicKey);
  const keyFile = join(daemon.dataDir, 'card-network.pem');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600 });
  await cli(['keys', 'card-network', 'import', '--org', orgId, '--private-key', keyFile, '--db', daemon.dbPath]);
  return {
    privateKey,
    encrypt: (payload) =>
      new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid, cty: 'application/json' })
        .encrypt(publicKey),
  };
}

import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasOpenssl } from '../support/openssl.js';
import { runCli, startBorderd } from '../support/process.js';
import { cardNetworkLibraryToken, joseToken, makeKeyPair, notification, selfSignedCertificate } from './jwe-fixtures.js';

describe('inbound notifications through the real daemon and CLI', () => {
  it('generate/import keys, receive, decrypt, fail on an unknown kid, retry after import', async () => {
    const daemon = await startBorderd({ env: { BORDERD_INBOUND_DECRYPT_RETRY_SECONDS: '[]', BORDERD_INBOUND_POLL_INTERVAL_MS: '100' } });
    try {
      const db = [...daemon.databaseArgs, '--json'];
      // The master key is the daemon's: beside its database file, or on PostgreSQL in its data directory.
      const env: Record<string, string> = daemon.databaseArgs[0] === '--database-url' ? { BORDERD_DATA_DIR: daemon.dataDir } : {};
      const cli = async (args: string[]) => {
        const r = await runCli([...args, ...db], env);
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as unknown;
      };
      const [org] = (await cli(['orgs', 'list'])) as { id: string }[];
      const orgId = org!.id;

      const generated = (await cli(['keys', 'card-network', 'generate', '--org', orgId])) as {
        kid: string;
        publicKey: string;
        csr: string;
        bits: number;
      };
      expect(generated.bits).toBe(2048);
      expect(generated.csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
      if (hasOpenssl()) {
        const csrFile = join(daemon.dataDir, 'key.csr');
        writeFileSync(csrFile, generated.csr);
        const text = execFileSync('openssl', ['req', '-in', csrFile, '-noout', '-verify', '-subject'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        expect(text).toMatch(/borderd/);
      }

      const imported = makeKeyPair();
      const keyFile = join(daemon.dataDir, 'imported.pem');
      writeFileSync(keyFile, imported.privatePem);
      expect(await cli(['keys', 'card-network', 'import', '--org', orgId, '--private-key', keyFile])).toMatchObject({
        kid: imported.kid,
        source: 'imported',
      });
      expect(((await cli(['keys', 'card-network', 'list', '--org', orgId])) as { kid: string }[]).map((k) => k.kid).sort()).toEqual(
        [generated.kid, imported.kid].sort(),
      );
      expect(await cli(['inbound', 'map-ica', '5000', '--org', orgId])).toMatchObject({ requeued: 0 });

      const late = makeKeyPair();
      const post = (body: unknown) =>
        fetch(`${daemon.url}/v1/webhooks/card-network`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const toGenerated = await joseToken({ n: 'jose' }, { publicKey: createPublicKey(generated.publicKey), kid: generated.kid });
      const fromLibrary = cardNetworkLibraryToken({ n: 'library' }, selfSignedCertificate(imported, daemon.dataDir));
      for (const [eventId, data] of [
        ['p-1', toGenerated],
        ['p-2', { encryptedValue: fromLibrary }],
        ['p-3', await joseToken({ n: 'late' }, late)],
      ] as const) {
        const res = await post(notification(data, { eventId, ica: '5000' }));
        expect(res.status).toBe(200);
      }

      // The daemon decrypts right after intake; poll the CLI (another process) until it shows the outcome.
      const waitFor = async (eventId: string, state: string) => {
        for (let i = 0; i < 200; i++) {
          const shown = (await cli(['inbound', 'show', eventId])) as { state: string };
          if (shown.state === state) return shown;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error(`${eventId} never reached ${state}`);
      };
      expect(await waitFor('p-1', 'decrypted')).toMatchObject({ payload: { n: 'jose' }, kid: generated.kid });
      expect(await waitFor('p-2', 'decrypted')).toMatchObject({ payload: { n: 'library' }, kid: imported.kid });
      expect(await waitFor('p-3', 'failed')).toMatchObject({ failureCode: 'unknown_kid', payload: null });
      expect(((await cli(['inbound', 'list', '--state', 'failed'])) as { eventId: string }[]).map((e) => e.eventId)).toEqual(['p-3']);

      const lateFile = join(daemon.dataDir, 'late.pem');
      writeFileSync(lateFile, late.privatePem);
      await cli(['keys', 'card-network', 'import', '--org', orgId, '--private-key', lateFile]);
      expect(await cli(['inbound', 'retry', '--failed'])).toEqual({ requeued: 1 });
      expect(await waitFor('p-3', 'decrypted')).toMatchObject({ payload: { n: 'late' }, failureCode: null });

      // A burst: every acknowledged notification is on disk.
      const burst = await Promise.all(
        Array.from({ length: 100 }, (_, i) => post(notification(toGenerated, { eventId: `b-${i}`, ica: 'burst' }))),
      );
      expect(burst.map((r) => r.status)).toEqual(Array(100).fill(200));
      const unmatched = (await cli(['inbound', 'list', '--state', 'unmatched', '--limit', '1000'])) as { eventId: string }[];
      expect(unmatched.map((e) => e.eventId).sort()).toEqual(Array.from({ length: 100 }, (_, i) => `b-${i}`).sort());

      expect(await cli(['keys', 'card-network', 'remove', generated.kid])).toMatchObject({ kid: generated.kid });
      const missing = await runCli(['keys', 'card-network', 'remove', generated.kid, ...db], env);
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.stdout).error.status).toBe(404);
    } finally {
      const exit = await daemon.stop('SIGTERM');
      expect(exit.code).toBe(0);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { daemonToken } from '../support/daemon-token.js';
import { runCli, startBorderd } from '../support/process.js';
import { signatureVerifies, startReceiver } from './receiver.js';

// Needs the compiled daemon and CLI (npm run build).
describe('a running daemon polls for rows other processes wrote', () => {
  it('delivers an event committed by a CLI command on the same database file', async () => {
    const receiver = await startReceiver();
    const daemon = await startBorderd({ env: { BORDERD_DELIVERY_POLL_INTERVAL_MS: '200' } });
    try {
      const { accessToken, orgId } = await daemonToken(daemon);
      const auth = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
      const hook = await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: receiver.url }),
      });
      expect(hook.status).toBe(201);
      const key = (await (await fetch(`${daemon.url}/v1/notifications/webhooks/settings/public-key`, { headers: auth })).json()) as {
        keyId: string;
        publicKey: string;
      };

      // Another process writes the transaction, its event and its delivery row; nothing signals the daemon.
      const cli = await runCli(
        ['tx', 'create', '--org', orgId, '--type', 'Deposit', '--amount', '12.34', '--currency', 'USD', ...daemon.databaseArgs, '--json'],
        // The daemon's data directory: its master key opens the sealed signing keys.
        { BORDERD_DATA_DIR: daemon.dataDir },
      );
      expect(cli.code, cli.stderr).toBe(0);
      const tx = JSON.parse(cli.stdout) as { id: string };

      await receiver.waitFor(1);
      const [r] = receiver.received;
      const event = JSON.parse(r!.body.toString()) as { id: string; type: string; data: { id: string; amount: string } };
      expect(event.type).toBe('Transaction_Created');
      expect(event.data).toMatchObject({ id: tx.id, amount: '12.34' });
      expect(r!.headers['x-event-id']).toBe(event.id);
      expect(r!.headers['x-signature-key-id']).toBe(key.keyId);
      expect(signatureVerifies(r!, key.publicKey)).toBe(true);
    } finally {
      expect((await daemon.stop('SIGTERM')).code).toBe(0);
    }
    expect(receiver.received).toHaveLength(1);
  }, 60_000);
});

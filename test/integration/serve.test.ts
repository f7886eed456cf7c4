import { describe, expect, it } from 'vitest';
import { startBorderd } from '../support/process.js';

describe('borderd serve (real process)', () => {
  it('first start prints credentials that work; SIGTERM exits 0', async () => {
    const daemon = await startBorderd();
    try {
      expect(daemon.credentials?.clientId).toMatch(/^cli_/);
      expect(daemon.output()).toContain(`curl -s -X POST ${daemon.url}/v1/auth/m2m/token`);

      const ready = await fetch(`${daemon.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready' });

      const tokenRes = await fetch(`${daemon.url}/v1/auth/m2m/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(daemon.credentials),
      });
      expect(tokenRes.status).toBe(201);
      const { accessToken } = (await tokenRes.json()) as { accessToken: string };

      const unauth = await fetch(`${daemon.url}/v1/refunds/config`);
      expect(unauth.status).toBe(401);
      const res = await fetch(`${daemon.url}/v1/refunds/config`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(await res.json()).toBeNull();
    } finally {
      const exit = await daemon.stop('SIGTERM');
      expect(exit).toEqual({ code: 0, signal: null });
    }
    // The secret went to stdout once, never into a log line.
    const logLines = daemon.output().split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.join('\n')).not.toContain(daemon.credentials!.clientSecret);
  });

  it('a second start on the same database creates nothing and prints no secret', async () => {
    const first = await startBorderd();
    await first.stop();
    const second = await startBorderd({ dataDir: first.dataDir });
    try {
      expect(second.credentials).toBeUndefined();
      expect(second.output()).not.toContain('clientSecret');
    } finally {
      const exit = await second.stop('SIGINT');
      expect(exit, second.output()).toEqual({ code: 0, signal: null });
    }
  });

  it('refuses to start on a bad config with one clear line', async () => {
    await expect(startBorderd({ env: { BORDERD_DELIVERY_JITTER: '2' } })).rejects.toThrow(/invalid config: delivery\.jitter/);
  });
});

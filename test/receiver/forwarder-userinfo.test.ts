import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Forwarder } from '../../src/receiver/forwarder.js';

describe('Forwarder userinfo', () => {
  it('sends a password with a malformed escape as written instead of throwing', async () => {
    let auth: string | undefined;
    const app = createServer((req, res) => ((auth = req.headers.authorization), res.end()));
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const port = (app.address() as AddressInfo).port;
    const fwd = new Forwarder(`http://dev:50%zz@127.0.0.1:${port}/hook`);
    try {
      const r = await fwd.forward('{}', { 'content-type': 'application/json' });
      expect(r.status).toBe(200);
      expect(auth).toBe(`Basic ${Buffer.from('dev:50%zz').toString('base64')}`);
    } finally {
      await fwd.close();
      app.close();
    }
  });
});

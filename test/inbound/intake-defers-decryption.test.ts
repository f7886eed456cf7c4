import { createServer, type ServerResponse } from 'node:http';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { createDecryptWorker } from '../../src/inbound/decrypt-worker.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { getInboundEventByEventId } from '../../src/store/inbound-events.js';
import { makeApi, makeContext, tempDir } from '../support/context.js';
import { countUnseals } from '../support/unseal-counter.js';
import { cardNetworkLibraryToken, joseToken, makeKeyPair, notification, selfSignedCertificate } from './jwe-fixtures.js';

const PATH = '/v1/webhooks/card-network';
const key = makeKeyPair();

/**
 * The 200 must never wait on decryption (an RSA unwrap is milliseconds of CPU). The snapshot is
 * taken when res.end is called, before the response is written: at that moment the row must still
 * be `received` and the worker must not yet have unsealed a key.
 */
describe('intake does not decrypt inside the request', () => {
  for (const kind of ['library', 'jose'] as const) {
    it(`answers while the row is still received (${kind} token), then the worker decrypts it`, async () => {
      const ctx = await makeContext({ 'inbound.pollIntervalMs': 3_600_000 });
      const org = await createOrganization(ctx, 'Acme');
      ctx.config.inbound.icaOrganizations = { '123456': org.id };
      await importCardNetworkKey(ctx, org.id, Buffer.from(key.privatePem));
      const unseals = countUnseals(ctx);
      const { app } = makeApi(ctx);
      const atResponse: { state?: string; unseals?: number }[] = [];
      const server = createServer((req, res) => {
        const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
        res.end = ((...a: unknown[]) => {
          // The response waits for the row's read: a row still `received` when read was `received`
          // when intake answered (a row only moves on from it), and the unseals are counted now.
          const unsealed = unseals.count;
          void getInboundEventByEventId(ctx.db, 'ev-1')
            .then(
              (row) => atResponse.push({ state: row?.state, unseals: unsealed }),
              (err: unknown) => atResponse.push({ state: `unreadable: ${String(err)}`, unseals: unsealed }),
            )
            .finally(() => end(...a));
          return res;
        }) as ServerResponse['end'];
        app(req, res);
      });
      const worker = createDecryptWorker(ctx);
      const startup = ctx.signals.inboundPassed.next();
      await worker.start();
      try {
        await startup; // the start-up pass, nothing due
        const token =
          kind === 'library'
            ? cardNetworkLibraryToken({ ok: kind }, selfSignedCertificate(key, tempDir()))
            : await joseToken({ ok: kind }, key);
        const passed = ctx.signals.inboundPassed.next();
        const res = await request(server).post(PATH).send(notification(token));
        expect(res.status).toBe(200);
        expect(atResponse).toEqual([{ state: 'received', unseals: 0 }]);
        const counts = await passed;
        expect(counts).toMatchObject({ decrypted: 1 });
        expect((await getInboundEventByEventId(ctx.db, 'ev-1'))!.state).toBe('decrypted');
        expect(unseals.count).toBe(1);
      } finally {
        await worker.stop();
      }
    });
  }
});

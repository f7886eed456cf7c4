import { describe, expect, it, vi } from 'vitest';
import { decryptDue, OPENS_IN_FLIGHT } from '../../src/inbound/decryption.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { createOrganization } from '../../src/services/organizations.js';
import { makeApi, makeContext } from '../support/context.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

// Counts the decryptions running at once; each is held until the test lets it finish.
const probe = vi.hoisted(() => ({ running: 0, most: 0, gate: Promise.resolve() as Promise<void> }));
vi.mock('../../src/inbound/jwe-decrypt.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/inbound/jwe-decrypt.js')>();
  return {
    ...real,
    decryptJwe: async (...args: Parameters<typeof real.decryptJwe>) => {
      probe.running++;
      probe.most = Math.max(probe.most, probe.running);
      try {
        await probe.gate;
        return await real.decryptJwe(...args);
      } finally {
        probe.running--;
      }
    },
  };
});

describe('inbound decryption of a queue', () => {
  it('keeps OPENS_IN_FLIGHT tokens decrypting at once (the thread pool works in parallel) and records the outcomes in queue order', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'Acme');
    ctx.config.inbound.icaOrganizations = { '123456': org.id };
    const key = makeKeyPair();
    await importCardNetworkKey(ctx, org.id, Buffer.from(key.privatePem));
    const { http } = makeApi(ctx);
    const ids = Array.from({ length: 7 }, (_, i) => `q-${i}`);
    for (const eventId of ids)
      await http.post('/v1/webhooks/card-network').send(notification(await joseToken({ eventId }, key), { eventId }));

    let open!: () => void;
    probe.gate = new Promise<void>((r) => (open = r));
    const pass = decryptDue(ctx);
    // While the first decryptions are held, the pass has started as many as it keeps in flight (once
    // it has read the queue, a round trip on PostgreSQL), and no more however many turns go by.
    await vi.waitFor(() => expect(probe.running).toBeGreaterThanOrEqual(OPENS_IN_FLIGHT), { timeout: 10_000 });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(probe.running).toBe(OPENS_IN_FLIGHT);
    open();
    expect(await pass).toMatchObject({ decrypted: ids.length });
    expect(OPENS_IN_FLIGHT).toBeGreaterThan(1);
    expect(probe.most).toBe(OPENS_IN_FLIGHT);
    const order = ctx.logs.lines.filter((l) => l.msg === 'card-network notification decrypted').map((l) => l.eventId);
    expect(order).toEqual(ids);
  });
});

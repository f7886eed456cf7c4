import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { getInboundEventByEventId, listInboundEventsByEventId } from '../../src/store/inbound-events.js';
import { makeApi, makeContext } from '../support/context.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

// The card network's eventId is unique within what it sends one customer (an ica), not across
// customers: one organization's eventId must not drop another's notification.

const PATH = '/v1/webhooks/card-network';
const keyA = makeKeyPair();
const keyB = makeKeyPair();

describe('deduplication per eventId and ica', () => {
  it("keeps B's notification when A's has the same eventId, and decrypts both", async () => {
    const ctx = await makeContext();
    const a = await createOrganization(ctx, 'A');
    const b = await createOrganization(ctx, 'B');
    ctx.config.inbound.icaOrganizations = { '111111': a.id, '222222': b.id };
    await importCardNetworkKey(ctx, a.id, Buffer.from(keyA.privatePem));
    await importCardNetworkKey(ctx, b.id, Buffer.from(keyB.privatePem));
    const { http } = makeApi(ctx);
    const first = await http.post(PATH).send(notification(await joseToken({ for: 'A' }, keyA), { eventId: 'SHARED-1', ica: '111111' }));
    expect(first.body).toEqual({ received: true, eventId: 'SHARED-1', duplicate: false });
    const second = await http.post(PATH).send(notification(await joseToken({ for: 'B' }, keyB), { eventId: 'SHARED-1', ica: '222222' }));
    expect(second.body).toEqual({ received: true, eventId: 'SHARED-1', duplicate: false });
    await decryptDue(ctx);
    const rows = await listInboundEventsByEventId(ctx.db, 'SHARED-1');
    expect(rows.map((r) => [r.ica, r.orgId, r.state])).toEqual([
      ['111111', a.id, 'decrypted'],
      ['222222', b.id, 'decrypted'],
    ]);
    // The same eventId and ica again is still a duplicate.
    const again = await http.post(PATH).send(notification(await joseToken({ for: 'B' }, keyB), { eventId: 'SHARED-1', ica: '222222' }));
    expect(again.body.duplicate).toBe(true);
    expect((await getInboundEventByEventId(ctx.db, 'SHARED-1', '222222'))!.orgId).toBe(b.id);
  });
});

import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/services/organizations.js';
import { decryptDue } from '../../src/inbound/decryption.js';
import { purgeInbound } from '../../src/inbound/event-queue.js';
import { receiveNotification } from '../../src/inbound/intake.js';
import { importCardNetworkKey } from '../../src/inbound/keyring.js';
import { inboundNotificationSchema } from '../../src/inbound/notification.js';
import { pruneOutbox } from '../../src/jobs/retention.js';
import { DAY_MS } from '../../src/domain/clock.js';
import { listHeldCopies, listInboundEvents } from '../../src/store/inbound-events.js';
import { makeContext, type TestContext } from '../support/context.js';
import { joseToken, makeKeyPair, notification } from './jwe-fixtures.js';

// inbound_events does not grow forever: retention deletes what is decided or still unmatched after
// its days, and `borderd inbound purge` deletes a state's rows at once.

const key = makeKeyPair();
const stranger = makeKeyPair();

async function fixture() {
  const ctx = await makeContext({ 'inbound.decryptRetrySeconds': [], 'retention.inboundDays': 30, 'retention.unmatchedInboundDays': 7 });
  const org = await createOrganization(ctx, 'Acme');
  ctx.config.inbound.icaOrganizations = { '5000': org.id };
  await importCardNetworkKey(ctx, org.id, Buffer.from(key.privatePem));
  const receive = async (eventId: string, ica = '5000', to = key) => {
    const body = notification(await joseToken({ eventId }, to), { eventId, ica });
    await receiveNotification(ctx, inboundNotificationSchema.parse(body), JSON.stringify(body), '198.51.100.9');
  };
  return { ctx, receive };
}

const eventIds = async (ctx: TestContext) => (await listInboundEvents(ctx.db)).map((r) => `${r.eventId}:${r.state}`).sort();

describe('inbound retention', () => {
  it('deletes decided rows after retention.inboundDays and unmatched ones after unmatchedInboundDays; queued rows stay', async () => {
    const { ctx, receive } = await fixture();
    await receive('old-ok');
    await receive('old-bad', '5000', stranger); // unknown kid, no retries: failed
    await receive('old-unmatched', 'nobody');
    await receive('old-unmatched', 'nobody'); // the same bytes: a duplicate
    await decryptDue(ctx);
    ctx.clock.advance(25 * DAY_MS);
    await receive('mid-unmatched', 'nobody');
    await receive('queued');
    ctx.clock.advance(6 * DAY_MS); // old-*: 31 days; mid-unmatched and queued: 6 days
    const result = await pruneOutbox(ctx);
    expect(result.inboundDeleted).toBe(3);
    expect(await eventIds(ctx)).toEqual(['mid-unmatched:unmatched', 'queued:received']);
  });
});

describe('borderd inbound purge', () => {
  it('deletes the rows of a state received before a time, their held copies with them', async () => {
    const { ctx, receive } = await fixture();
    await receive('u-1', 'nobody');
    const body = notification(await joseToken({ other: 'bytes' }, key), { eventId: 'u-1', ica: 'nobody' });
    await receiveNotification(ctx, inboundNotificationSchema.parse(body), JSON.stringify(body));
    const [held] = await listInboundEvents(ctx.db);
    expect(await listHeldCopies(ctx.db, held!.id)).toHaveLength(1);
    await receive('d-1');
    await decryptDue(ctx);
    ctx.clock.advance(60_000);
    await receive('u-2', 'other');
    const before = new Date(ctx.clock.now() - 1).toISOString();
    expect(await purgeInbound(ctx, { state: 'unmatched', before })).toEqual({ deleted: 1 });
    expect(await eventIds(ctx)).toEqual(['d-1:decrypted', 'u-2:unmatched']);
    expect(await listHeldCopies(ctx.db, held!.id)).toEqual([]);
    expect(await purgeInbound(ctx, { state: 'unmatched', ica: 'other' })).toEqual({ deleted: 1 });
    expect(await eventIds(ctx)).toEqual(['d-1:decrypted']);
    await expect(purgeInbound(ctx, { state: 'received' as never })).rejects.toMatchObject({ code: 'invalid_state' });
  });
});

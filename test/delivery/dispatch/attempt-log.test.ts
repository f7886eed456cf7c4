/**
 * What a recorded attempt writes to the log: a delivered attempt is a debug line (it is already an
 * attempt row and a metric), so the default info level writes nothing per delivery; a failed
 * attempt is a warning at any level.
 */
import { describe, expect, it } from 'vitest';
import { listAttempts } from '../../../src/store/delivery-attempts.js';
import { listDeliveries } from '../../../src/store/delivery-views.js';
import { newTx, setup } from './support.js';

/** pino's numeric levels. */
const DEBUG = 20;
const WARN = 40;

describe('the log line of a delivery attempt', () => {
  it('at info, a delivered attempt is recorded with no line and a failed one is a warning', async () => {
    const { ctx, org, receiver, dispatcher, webhookId } = await setup();
    ctx.log.level = 'info';
    await newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const [delivered] = await listDeliveries(ctx.db, { state: 'delivered', webhookId, limit: 10 });
    expect(delivered).toBeDefined();
    const [attempt] = await listAttempts(ctx.db, delivered!.id);
    expect(attempt).toMatchObject({ attempt: 1, statusCode: 200 });
    expect(ctx.logs.lines.filter((l) => l.deliveryId === delivered!.id)).toEqual([]);

    receiver.setResponder((_r, res) => {
      res.statusCode = 500;
      res.end('down');
    });
    await newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const [failed] = await listDeliveries(ctx.db, { state: 'pending', webhookId, limit: 10 });
    const lines = ctx.logs.lines.filter((l) => l.deliveryId === failed!.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: WARN, msg: 'delivery attempt failed', outcome: 'retry', statusCode: 500, attempt: 1 });
  });

  it('at debug, a delivered attempt is one line with its ids', async () => {
    const { ctx, org, dispatcher, webhookId } = await setup();
    await newTx(ctx, org.org.id);
    expect(await dispatcher.runOnce()).toBe(1);
    const [delivered] = await listDeliveries(ctx.db, { state: 'delivered', webhookId, limit: 10 });
    const lines = ctx.logs.lines.filter((l) => l.deliveryId === delivered!.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: DEBUG, msg: 'delivery attempt', outcome: 'delivered', statusCode: 200, webhookId });
  });
});

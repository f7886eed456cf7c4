/**
 * Waiting for an event to be readable in commit order. On PostgreSQL an event is read (by the
 * stream, and by an ordered webhook's claim) only below the oldest transaction still running on the
 * server, and a transaction of another test file on the shared server can hold that watermark below
 * events already committed. A test that counts exactly what comes waits here first.
 */
import { expect, vi } from 'vitest';
import { latestEventId } from '../../src/store/events.js';
import type { TestContext } from './context.js';

/** Waits until `eventId` is the organization's newest event below the watermark. */
export async function untilReadable(ctx: TestContext, orgId: string, eventId: string): Promise<void> {
  await vi.waitFor(async () => expect(await latestEventId(ctx.db, orgId)).toBe(eventId), { timeout: 20_000, interval: 20 });
}

/**
 * Test events (POST …/webhooks/settings/{id}/test): their own family of event types, `test.` and
 * the real type, inside the signed body, so a receiver refuses every one of them with one check
 * after verifying, whatever their data says. Their identity fields (`data.id`, the times) are
 * borderd's, never the caller's: a test event cannot name a real transaction, account or check.
 *
 * @module verify/test-events
 */
import type { EventType } from './events.js';

/** What every test event's `type` starts with. No real event type does. */
export const TEST_EVENT_PREFIX = 'test.';

/** A test event's type: `test.` and the type it stands in for, e.g. `test.Transaction_Updated`. */
export type TestEventType = `${typeof TEST_EVENT_PREFIX}${EventType}`;

/** The data of a test event: identity fields borderd made up, and what the caller gave under `testData`. */
export interface TestEventData {
  /** A new id (txn_…, vac_… or cmp_…) that names nothing stored. */
  id: string;
  createdAt: string;
  updatedAt: string;
  synthetic: true;
  /** The caller's data, as given ({} when none). */
  testData: Record<string, unknown>;
}

/** The JSON body of a test delivery. */
export interface TestWebhookEvent {
  id: string;
  type: TestEventType;
  organizationId: string;
  createdAt: string;
  timestamp: number;
  data: TestEventData;
}

/** The test event type that stands in for `type`. */
export const testEventType = (type: EventType): TestEventType => `${TEST_EVENT_PREFIX}${type}`;

/**
 * Whether a delivery's event is a test event: the one check a receiver makes to refuse them. Make
 * it on the verified body (its `type` is signed by both x-signature and webhook-signature), never
 * on the unsigned `x-event-type` header.
 */
export function isTestEvent(event: { readonly type: string }): boolean {
  return typeof event.type === 'string' && event.type.startsWith(TEST_EVENT_PREFIX);
}

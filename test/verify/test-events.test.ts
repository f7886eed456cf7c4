import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  TEST_EVENT_PREFIX,
  createTestSigner,
  isTestEvent,
  testEventType,
  verifyWebhook,
  type TestWebhookEvent,
} from '../../src/verify/index.js';
import { testEventData } from '../../src/services/webhook-deliveries.js';

describe('telling test events apart (borderd/verify)', () => {
  it('names every test event type test.<type>, and no real type starts so', () => {
    expect(EVENT_TYPES.map(testEventType)).toEqual(EVENT_TYPES.map((t) => `test.${t}`));
    expect(EVENT_TYPES.filter((t) => t.startsWith(TEST_EVENT_PREFIX))).toEqual([]);
  });

  it('is one check on the verified body: a test event is refused, a real one of the same type passes', () => {
    const signer = createTestSigner({ modulusLength: 1024 });
    const real = signer.signEvent('Transaction_Updated', {
      id: 'txn_real',
      status: 'Completed',
    } as never);
    const body: TestWebhookEvent = {
      id: 'evt_test1',
      type: testEventType('Transaction_Updated'),
      organizationId: 'org_1',
      createdAt: '2026-11-27T00:00:00.000Z',
      timestamp: Date.parse('2026-11-27T00:00:00.000Z'),
      data: testEventData('Transaction_Updated', Date.parse('2026-11-27T00:00:00.000Z'), { id: 'txn_real', status: 'Completed' }),
    };
    const test = signer.signBody(JSON.stringify(body));
    const verified = [real, test].map((d) => verifyWebhook<{ type: string; data: { id: string } }>(d.body, d.headers, signer.publicKey));
    expect(verified.map(isTestEvent)).toEqual([false, true]);
    // The caller's data cannot take the identity fields: they stay borderd's, the caller's go under testData.
    expect(verified[1]!.data.id).toMatch(/^txn_/);
    expect(verified[1]!.data.id).not.toBe('txn_real');
    expect(verified[1]!.data).toMatchObject({ synthetic: true, testData: { id: 'txn_real', status: 'Completed' } });
  });

  it('holds for a body whose type is not a string', () => {
    expect(isTestEvent({ type: 42 } as never)).toBe(false);
  });
});

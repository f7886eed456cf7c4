/** What `borderd receive` passes on to the app of the sender's headers, and what --pass-header adds. */
import { describe, expect, it } from 'vitest';
import { forwardedHeaders } from '../../src/receiver/forwarder.js';

const event = { id: 'evt_1', type: 'Transaction_Created' };
const received = {
  'content-type': 'application/json',
  'x-signature': 'sig',
  'x-event-type': 'Evil_Type',
  'x-request-id': 'req-7',
  cookie: 'session=1',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};

describe('headers forwarded to the app', () => {
  it('passes a named unsigned header as received, and never lets one replace a header borderd sets', () => {
    expect(forwardedHeaders(received, event)['x-request-id']).toBeUndefined();
    const out = forwardedHeaders(received, event, ['X-Request-Id', 'x-event-type']);
    expect(out['x-request-id']).toBe('req-7');
    expect(out['x-event-type']).toBe('Transaction_Created');
    expect(out.cookie).toBeUndefined();
    expect(out.traceparent).toBe(received.traceparent);
  });

  it('drops a traceparent that is not a W3C trace context', () => {
    expect(forwardedHeaders({ ...received, traceparent: 'evil' }, event).traceparent).toBeUndefined();
  });
});

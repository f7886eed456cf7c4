/**
 * A delivery's headers, built from the one list that the OpenAPI document's `webhooks` entry
 * describes: in the order they are sent, each present only when its value is known.
 */
import { describe, expect, it } from 'vitest';
import { deliveryWebhook } from '../../src/api/delivery-headers.js';
import { attemptHeaders, DELIVERY_HEADERS, deliveryHeaders, storedHeaders } from '../../src/domain/delivery-headers.js';

const values = {
  userAgent: 'borderd/1.2.3',
  signature: 'c2lnbmF0dXJl',
  keyId: 'wsk_1',
  eventId: 'evt_1',
  eventType: 'Transaction_Created',
  attempt: 3,
};

describe('a delivery’s headers', () => {
  it('are every header of a send, in the order of the list', () => {
    const headers = deliveryHeaders({
      ...values,
      standardWebhooks: { 'webhook-signature': 'v1,c2ln', 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000' },
      traceparent: '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01',
    });
    expect(Object.entries(headers)).toEqual([
      ['content-type', 'application/json'],
      ['user-agent', 'borderd/1.2.3'],
      ['x-signature', 'c2lnbmF0dXJl'],
      ['x-signature-key-id', 'wsk_1'],
      ['x-event-id', 'evt_1'],
      ['x-event-type', 'Transaction_Created'],
      ['x-delivery-attempt', '3'],
      ['webhook-id', 'evt_1'],
      ['webhook-timestamp', '1700000000'],
      ['webhook-signature', 'v1,c2ln'],
      ['traceparent', '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01'],
    ]);
    expect(Object.keys(headers)).toEqual(DELIVERY_HEADERS.map((h) => h.name));
  });

  it('leave out what is not known: no Standard Webhooks headers, no trace, a signature no longer stored, no key', () => {
    expect(deliveryHeaders(values)).toEqual({
      'content-type': 'application/json',
      'user-agent': 'borderd/1.2.3',
      'x-signature': 'c2lnbmF0dXJl',
      'x-signature-key-id': 'wsk_1',
      'x-event-id': 'evt_1',
      'x-event-type': 'Transaction_Created',
      'x-delivery-attempt': '3',
    });
    expect(Object.keys(deliveryHeaders({ ...values, signature: undefined, keyId: null }))).toEqual([
      'content-type',
      'user-agent',
      'x-event-id',
      'x-event-type',
      'x-delivery-attempt',
    ]);
  });

  it('are the headers the OpenAPI document lists for a delivery, required as every send carries them', () => {
    const parameters = deliveryWebhook.event.post.parameters;
    expect(parameters.map((p) => [p.name, p.in, p.required])).toEqual(DELIVERY_HEADERS.map((h) => [h.name, 'header', h.required]));
    const always = Object.keys(deliveryHeaders(values));
    expect(parameters.filter((p) => p.required).map((p) => p.name)).toEqual(always);
    for (const p of parameters) expect(p.description.length).toBeGreaterThan(0);
  });

  it('are stored in part by an attempt: the values made at its send; the rest is derived back exactly, in order', () => {
    const { userAgent: _ua, ...derived } = values;
    const standard = { 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,c2ln v1a,ZWQ=' };
    const traceparent = '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01';
    for (const sent of [
      deliveryHeaders(values),
      deliveryHeaders({ ...values, standardWebhooks: standard }),
      deliveryHeaders({ ...values, standardWebhooks: standard, traceparent }),
      deliveryHeaders({ ...values, traceparent }),
    ]) {
      const stored = storedHeaders(sent);
      expect(Object.keys(stored)).toEqual(DELIVERY_HEADERS.filter((h) => h.stored && h.name in sent).map((h) => h.name));
      const read = attemptHeaders(JSON.parse(JSON.stringify(stored)) as Record<string, string>, derived);
      expect(Object.entries(read)).toEqual(Object.entries(sent));
    }
    expect(storedHeaders(deliveryHeaders(values))).toEqual({ 'user-agent': 'borderd/1.2.3' });
  });

  it('read from an attempt: what it stored laid over what is derived; nothing stored, nothing sent', () => {
    const { userAgent: _ua, ...derived } = values;
    // A row of an older borderd that stored every header reads as stored, whatever the derivation says now.
    const whole = { ...deliveryHeaders(values), 'x-signature': 'b2xk', 'x-later': 'kept' };
    expect(Object.entries(attemptHeaders(whole, { ...derived, signature: undefined }))).toEqual(Object.entries(whole));
    expect(attemptHeaders({}, derived)).toEqual({});
  });
});

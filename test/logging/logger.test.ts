import { describe, expect, it } from 'vitest';
import { createLogger, redactSensitive } from '../../src/logging/logger.js';
import { LogCapture } from '../support/context.js';

const data = {
  firstName: 'Wilhelmina',
  middleName: 'Quintessa',
  lastName: 'Zabaleta',
  secondLastName: 'Oyarzun',
  nameInLocalScript: 'ヴィルヘルミナ',
  taxId: 'TAXID998877',
  dateOfBirth: '1987-06-05',
  email: 'wil.z@private.example',
  phone: '+5215598765432',
  city: 'CDMX',
  country: 'MX',
  address: { street1: 'Calle Secreta 42', street2: 'Depto 9B', city: 'CDMX', postalCode: '06799' },
  documents: [{ type: 'Passport', idNumber: 'PX9988776', issuingCountry: 'MX' }],
};
const PII = [
  'Wilhelmina',
  'Quintessa',
  'Zabaleta',
  'Oyarzun',
  'ヴィルヘルミナ',
  'TAXID998877',
  '1987-06-05',
  'wil.z@private.example',
  '+5215598765432',
  'Calle Secreta 42',
  'Depto 9B',
  '06799',
  'PX9988776',
];

describe('logger redaction of identity PII', () => {
  it.each([
    ['top level', data],
    ['a record', { record: data }],
    ['an identity', { identity: { id: 'idn_1', type: 'Personal', data } }],
    ['a request body', { req: { body: { type: 'Personal', data } } }],
    [
      'a list of identities',
      {
        identities: [
          { id: 'idn_1', data },
          { id: 'idn_2', data },
        ],
      },
    ],
    ['a page of identities', { page: { hasMore: false, data: [{ id: 'idn_1', data }] } }],
  ])('removes names, contact data, addresses and document numbers nested in %s', (_where, obj) => {
    const logs = new LogCapture();
    const log = createLogger({ level: 'info', pretty: 'never', destination: logs });
    log.info(obj, 'identity logged');
    const text = logs.text();
    expect(text).toContain('identity logged');
    for (const value of PII) expect(text, value).not.toContain(value);
    // What is not personal stays readable.
    if (JSON.stringify(obj).includes('CDMX')) expect(text).toContain('CDMX');
    if (JSON.stringify(obj).includes('idn_1')) expect(text).toContain('idn_1');
  });
});

describe('redactSensitive', () => {
  it('censors secrets and PII at any depth, in arrays too, and leaves the rest', () => {
    const deep = { a: { b: { c: { d: { e: { f: { g: { clientSecret: 'bsk_x', email: 'a@b.c', note: 'kept' } } } } } } } };
    const out = redactSensitive({ list: [{ headers: { authorization: 'Bearer t' } }], deep }) as typeof deep & {
      list: { headers: Record<string, string> }[];
    };
    expect(out.list[0]!.headers.authorization).toBe('[redacted]');
    expect((out as unknown as { deep: typeof deep }).deep.a.b.c.d.e.f.g).toEqual({
      clientSecret: '[redacted]',
      email: '[redacted]',
      note: 'kept',
    });
  });

  it('returns the same object when nothing is sensitive, and never mutates the input', () => {
    const clean = { method: 'GET', route: '/v1/identities', status: 200, nested: { ids: ['idn_1'] } };
    expect(redactSensitive(clean)).toBe(clean);
    const input = { body: { apiSecret: 's3cret' } };
    redactSensitive(input);
    expect(input.body.apiSecret).toBe('s3cret');
  });

  it('cuts off a cycle instead of walking forever', () => {
    const loop: Record<string, unknown> = { name: 'x' };
    loop.self = loop;
    expect(() => redactSensitive(loop)).not.toThrow();
  });
});

describe('errors in log lines', () => {
  it('censors sensitive fields an error carries, keeping its message and stack', () => {
    const logs = new LogCapture();
    const log = createLogger({ level: 'info', pretty: 'never', destination: logs });
    const err = Object.assign(new Error('provider refused'), {
      request: { headers: { authorization: 'Bearer sk_live_123' }, body: { apiSecret: 'shh-42' } },
    });
    log.error({ err }, 'provider call failed');
    const text = logs.text();
    expect(text).toContain('provider refused');
    expect(text).not.toContain('sk_live_123');
    expect(text).not.toContain('shh-42');
  });
});

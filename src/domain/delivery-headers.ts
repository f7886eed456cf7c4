/**
 * The headers of a delivery, the one list of them: each header's name, what it carries (the
 * OpenAPI document's `webhooks` entry says it in these words), where its value comes from, and
 * whether an attempt stores it or its value is derived from other rows. The dispatcher's sends, a
 * receiver's tunnel, and the attempts view all build them here, in this order.
 *
 * @module domain/delivery-headers
 */
import { WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../verify/standard-webhooks.js';

/** What one delivery's headers are made of. */
export interface DeliveryHeaderValues {
  /** `borderd/<version>` from borderd; a receiver names itself. */
  userAgent: string;
  /** The x-signature; undefined when it is not known (an attempt rebuilt after its event's signatures were pruned). */
  signature: string | undefined;
  /** The id of the key that made the signature; null when there is none. */
  keyId: string | null;
  eventId: string;
  eventType: string;
  /** This attempt's number in its cycle, from 1. */
  attempt: number;
  /** The Standard Webhooks headers made at the send; none for a webhook without a secret nor v1a, or when they are not known. */
  standardWebhooks?: Readonly<Record<string, string>>;
  /** The W3C trace context of the send, while tracing is on. */
  traceparent?: string | undefined;
}

/** One header of a delivery. */
export interface DeliveryHeader {
  name: string;
  /** What it carries, for readers of the OpenAPI document. */
  description: string;
  /** Its value's JSON Schema, for the OpenAPI document. */
  schema: Readonly<Record<string, unknown>>;
  /** Whether every delivery carries it. */
  required: boolean;
  /**
   * Whether an attempt stores its value: made at the send (a time, a secret's signature, a span),
   * it is known from nothing else. The others are derived exactly from the event, the attempt's row
   * and event_signatures, so each attempt row stores a few short values instead of its whole request.
   */
  stored: boolean;
  /** Its value in a delivery; undefined or null: the delivery does not carry it. */
  value(v: DeliveryHeaderValues): string | null | undefined;
}

const STRING = { type: 'string' } as const;

/** Every header of a delivery, in the order they are sent. */
export const DELIVERY_HEADERS: readonly DeliveryHeader[] = [
  {
    name: 'content-type',
    description: 'application/json',
    schema: { type: 'string', const: 'application/json' },
    required: true,
    stored: false,
    value: () => 'application/json',
  },
  { name: 'user-agent', description: 'borderd/<version>', schema: STRING, required: true, stored: true, value: (v) => v.userAgent },
  {
    name: 'x-signature',
    description: "base64 of RSASSA-PKCS1-v1_5 with SHA-256 over the exact body bytes, by the organization's key (the API spec's contract)",
    schema: STRING,
    required: true,
    stored: false,
    value: (v) => v.signature,
  },
  {
    name: 'x-signature-key-id',
    description: 'id (wsk_…) of the key that made x-signature: GET …/settings/public-key?keyId= fetches it',
    schema: STRING,
    required: true,
    stored: false,
    value: (v) => v.keyId,
  },
  {
    name: 'x-event-id',
    description: 'the event id (the body is authoritative)',
    schema: STRING,
    required: true,
    stored: false,
    value: (v) => v.eventId,
  },
  { name: 'x-event-type', description: 'the event type', schema: STRING, required: true, stored: false, value: (v) => v.eventType },
  {
    name: 'x-delivery-attempt',
    description: '1 for the first attempt of a cycle, then 2, 3…',
    schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
    required: true,
    stored: false,
    value: (v) => String(v.attempt),
  },
  {
    name: WEBHOOK_ID_HEADER,
    description: 'Standard Webhooks: the event id, the same on every retry and replay. Absent for a webhook without a secret',
    schema: STRING,
    required: false,
    stored: false,
    // The event id, sent with the other Standard Webhooks headers: derived wherever webhook-signature went out.
    value: (v) => (v.standardWebhooks?.[WEBHOOK_SIGNATURE_HEADER] === undefined ? undefined : v.eventId),
  },
  {
    name: WEBHOOK_TIMESTAMP_HEADER,
    description:
      "Standard Webhooks: this attempt's send time in whole unix seconds, signed; receivers refuse it beyond their tolerance (replays)",
    schema: { type: 'string', pattern: '^[0-9]+$' },
    required: false,
    stored: true,
    value: (v) => v.standardWebhooks?.[WEBHOOK_TIMESTAMP_HEADER],
  },
  {
    name: WEBHOOK_SIGNATURE_HEADER,
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` under the webhook secret; two entries during a rotation window; then, for a webhook that chose webhook-signature:v1a, `v1a,<base64 Ed25519 signature of the same bytes>` (the organization key in its JWKS)',
    schema: { type: 'string', pattern: '^v1a?,[A-Za-z0-9+/=]+( v1a?,[A-Za-z0-9+/=]+)*$' },
    required: false,
    stored: true,
    value: (v) => v.standardWebhooks?.[WEBHOOK_SIGNATURE_HEADER],
  },
  {
    name: 'traceparent',
    description: 'W3C trace context of the send, while tracing is on: a receiver’s spans continue the event’s trace',
    schema: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
    required: false,
    stored: true,
    value: (v) => v.traceparent,
  },
];

/** A delivery's headers, in the order they are sent; a header without a value is left out. */
export function deliveryHeaders(values: DeliveryHeaderValues): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of DELIVERY_HEADERS) {
    const value = header.value(values);
    if (value !== undefined && value !== null) headers[header.name] = value;
  }
  return headers;
}

/** The headers an attempt stores, by name: those declared `stored`. */
const STORED_NAMES: readonly string[] = DELIVERY_HEADERS.filter((h) => h.stored).map((h) => h.name);

/**
 * What an attempt stores of the headers its request went out with: the values of the headers
 * declared `stored`. Every request stores at least its user-agent, so an attempt that stored
 * nothing (`{}`) sent nothing.
 */
export function storedHeaders(sent: Readonly<Record<string, string>>): Record<string, string> {
  const stored: Record<string, string> = {};
  for (const name of STORED_NAMES) {
    const value = sent[name];
    if (value !== undefined) stored[name] = value;
  }
  return stored;
}

/** What an attempt's derived headers are made from: its event, its row, and the signature event_signatures holds for its key. */
export type DerivedHeaderValues = Pick<DeliveryHeaderValues, 'signature' | 'keyId' | 'eventId' | 'eventType' | 'attempt'>;

/**
 * The headers an attempt went out with: each derived header made from `derived`, with the values
 * the attempt stored laid over them, in the order they are sent (a value stored under a name this
 * list does not hold follows them). A row that stored the whole request reads as it was stored;
 * one that stored nothing (`{}`) sent nothing.
 */
export function attemptHeaders(stored: Readonly<Record<string, string>>, derived: DerivedHeaderValues): Record<string, string> {
  const headers: Record<string, string> = {};
  if (Object.keys(stored).length === 0) return headers;
  const values: DeliveryHeaderValues = {
    ...derived,
    userAgent: stored['user-agent'] ?? '',
    standardWebhooks: stored,
    traceparent: stored.traceparent,
  };
  for (const header of DELIVERY_HEADERS) {
    const value = stored[header.name] ?? (header.stored ? undefined : header.value(values));
    if (value !== undefined && value !== null) headers[header.name] = value;
  }
  for (const [name, value] of Object.entries(stored)) if (!Object.hasOwn(headers, name)) headers[name] = value;
  return headers;
}

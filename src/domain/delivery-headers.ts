/**
 * The headers of a delivery, the one list of them: each header's name, what it carries (the
 * OpenAPI document's `webhooks` entry says it in these words) and where its value comes from. The
 * dispatcher's sends, a receiver's tunnel, and the attempts view of an attempt recorded without its
 * headers all build them here, in this order.
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
    value: () => 'application/json',
  },
  { name: 'user-agent', description: 'borderd/<version>', schema: STRING, required: true, value: (v) => v.userAgent },
  {
    name: 'x-signature',
    description: "base64 of RSASSA-PKCS1-v1_5 with SHA-256 over the exact body bytes, by the organization's key (the API spec's contract)",
    schema: STRING,
    required: true,
    value: (v) => v.signature,
  },
  {
    name: 'x-signature-key-id',
    description: 'id (wsk_…) of the key that made x-signature: GET …/settings/public-key?keyId= fetches it',
    schema: STRING,
    required: true,
    value: (v) => v.keyId,
  },
  { name: 'x-event-id', description: 'the event id (the body is authoritative)', schema: STRING, required: true, value: (v) => v.eventId },
  { name: 'x-event-type', description: 'the event type', schema: STRING, required: true, value: (v) => v.eventType },
  {
    name: 'x-delivery-attempt',
    description: '1 for the first attempt of a cycle, then 2, 3…',
    schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
    required: true,
    value: (v) => String(v.attempt),
  },
  {
    name: WEBHOOK_ID_HEADER,
    description: 'Standard Webhooks: the event id, the same on every retry and replay. Absent for a webhook without a secret',
    schema: STRING,
    required: false,
    value: (v) => v.standardWebhooks?.[WEBHOOK_ID_HEADER],
  },
  {
    name: WEBHOOK_TIMESTAMP_HEADER,
    description:
      "Standard Webhooks: this attempt's send time in whole unix seconds, signed; receivers refuse it beyond their tolerance (replays)",
    schema: { type: 'string', pattern: '^[0-9]+$' },
    required: false,
    value: (v) => v.standardWebhooks?.[WEBHOOK_TIMESTAMP_HEADER],
  },
  {
    name: WEBHOOK_SIGNATURE_HEADER,
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` under the webhook secret; two entries during a rotation window; then, for a webhook that chose webhook-signature:v1a, `v1a,<base64 Ed25519 signature of the same bytes>` (the organization key in its JWKS)',
    schema: { type: 'string', pattern: '^v1a?,[A-Za-z0-9+/=]+( v1a?,[A-Za-z0-9+/=]+)*$' },
    required: false,
    value: (v) => v.standardWebhooks?.[WEBHOOK_SIGNATURE_HEADER],
  },
  {
    name: 'traceparent',
    description: 'W3C trace context of the send, while tracing is on: a receiver’s spans continue the event’s trace',
    schema: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
    required: false,
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

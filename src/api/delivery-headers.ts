/**
 * The delivery borderd sends to a webhook, as the OpenAPI document's `webhooks` entry: every header
 * with what it carries, one list (docs/webhooks.md shows the same table).
 *
 * @module api/delivery-headers
 */

const header = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }, required = true) => ({
  name,
  in: 'header',
  required,
  description,
  schema,
});

/** Every header of a delivery, in the order they are sent. */
export const DELIVERY_HEADERS = [
  header('content-type', 'application/json', { type: 'string', const: 'application/json' }),
  header('user-agent', 'borderd/<version>'),
  header(
    'x-signature',
    "base64 of RSASSA-PKCS1-v1_5 with SHA-256 over the exact body bytes, by the organization's key (the API spec's contract)",
  ),
  header('x-signature-key-id', 'id (wsk_…) of the key that made x-signature: GET …/settings/public-key?keyId= fetches it'),
  header('x-event-id', 'the event id (the body is authoritative)'),
  header('x-event-type', 'the event type'),
  header('x-delivery-attempt', '1 for the first attempt of a cycle, then 2, 3…', { type: 'string', pattern: '^[1-9][0-9]*$' }),
  header(
    'webhook-id',
    'Standard Webhooks: the event id, the same on every retry and replay. Absent for a webhook without a secret',
    { type: 'string' },
    false,
  ),
  header(
    'webhook-timestamp',
    "Standard Webhooks: this attempt's send time in whole unix seconds, signed; receivers refuse it beyond their tolerance (replays)",
    { type: 'string', pattern: '^[0-9]+$' },
    false,
  ),
  header(
    'webhook-signature',
    'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` under the webhook secret; two entries during a rotation window; then, for a webhook that chose webhook-signature:v1a, `v1a,<base64 Ed25519 signature of the same bytes>` (the organization key in its JWKS)',
    { type: 'string', pattern: '^v1a?,[A-Za-z0-9+/=]+( v1a?,[A-Za-z0-9+/=]+)*$' },
    false,
  ),
];

/** The OpenAPI 3.1 `webhooks` object: the POST borderd makes to each enabled webhook URL. */
export const deliveryWebhook = {
  event: {
    post: {
      summary: 'An event delivered to a webhook URL',
      description:
        'Sent to every enabled webhook of the organization, retried on anything but a 2xx. Verify x-signature with the ' +
        "organization's public key, or webhook-signature with the webhook's secret (any Standard Webhooks library).",
      operationId: 'eventDelivery',
      tags: ['webhooks'],
      parameters: DELIVERY_HEADERS,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['id', 'type', 'organizationId', 'createdAt', 'timestamp', 'data'],
              properties: {
                id: { type: 'string' },
                type: { type: 'string' },
                organizationId: { type: 'string' },
                createdAt: { type: 'string', format: 'date-time' },
                timestamp: { type: 'integer' },
                data: { type: 'object' },
              },
            },
          },
        },
      },
      responses: {
        '200': { description: 'delivered (any 2xx); 410 disables the webhook at once; anything else is retried' },
      },
    },
  },
};

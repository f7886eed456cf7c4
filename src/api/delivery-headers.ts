/**
 * The delivery borderd sends to a webhook, as the OpenAPI document's `webhooks` entry: its headers
 * (domain/delivery-headers, the list the senders build them from), its body and what its answer does.
 *
 * @module api/delivery-headers
 */
import { DELIVERY_HEADERS } from '../domain/delivery-headers.js';

/** Every header of a delivery as an OpenAPI header parameter, in the order they are sent. */
const DELIVERY_HEADER_PARAMETERS = DELIVERY_HEADERS.map(({ name, description, schema, required }) => ({
  name,
  in: 'header',
  required,
  description,
  schema,
}));

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
      parameters: DELIVERY_HEADER_PARAMETERS,
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

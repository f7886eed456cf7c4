/**
 * The shapes the console reads, named from the types generated from /openapi.json
 * (generated/api-types.ts, `npm run console:types`): nothing here restates a field or a list of
 * the server's.
 *
 * @module console/types
 */
import type { components, paths } from './generated/api-types.js';

type Shapes = components['schemas'];

/** The JSON body of a route's answer with `status`. The organization's routes name them; the operator's answer the same shapes. */
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

export type Period = Shapes['PeriodStats'];
export type Health = Shapes['WebhookHealth'];
export type Delivery = Shapes['Delivery'];
export type Attempt = Shapes['Attempt'];
export type EventRow = Shapes['OutboxEvent'];
export type BlockedLine = Shapes['BlockedLine'];
export type ReplayResult = Shapes['ReplayResult'];
export type TestEventResult = Shapes['TestEventResult'];
export type Notification = Shapes['InboundNotification'];
export type WebhooksWithHealth = Answer<'/v1/notifications/webhooks/health', 'get'>;
export type Webhook = WebhooksWithHealth['data'][number]['webhook'];
export type DeliveryPage = Answer<'/v1/notifications/webhooks/settings/{id}/deliveries', 'get'>;
export type DeliveryWithAttempts = Answer<'/v1/notifications/deliveries/{id}', 'get'>;
export type EventPage = Answer<'/v1/notifications/events', 'get'>;
export type Organizations = Answer<'/admin/v1/organizations', 'get'>;
export type Notifications = Answer<'/admin/v1/inbound/events', 'get'>;
export type BlockedLines = Answer<'/v1/notifications/webhooks/settings/{id}/blocked', 'get'>;
export type IssuedToken = Answer<'/v1/auth/m2m/token', 'post', 201>;

export { DELIVERY_STATES, EVENT_TYPES, INBOUND_STATES } from './generated/api-types.js';

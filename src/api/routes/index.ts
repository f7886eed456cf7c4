/**
 * Every route module, in one flat list: app.ts mounts them in this order and /openapi.json describes
 * them. A module declares the routes of one face: the organization's (/v1, its bearer token), or the
 * operator's (/admin/v1, the admin token), never both; health and the card network's route take no
 * token.
 *
 * @module api/routes/index
 */
import type { RouteModule } from '../route.js';
import { accountRoutes } from './accounts.js';
import { adminInboundRoutes } from './admin-inbound.js';
import { adminResourceRoutes } from './admin-resources.js';
import { adminTransactionRoutes } from './admin-transactions.js';
import { adminWebhookRoutes } from './admin-webhooks.js';
import { authRoutes } from './auth.js';
import { benchmarkSummaryRoutes } from './benchmark-summary.js';
import { eventStreamRoutes } from './event-stream.js';
import { healthRoutes } from './health.js';
import { identityRoutes } from './identities.js';
import { inboundRoutes } from './inbound.js';
import { integrationRoutes } from './integrations.js';
import { jwksRoutes } from './jwks.js';
import { networkRoutes } from './network.js';
import { refundRoutes } from './refunds.js';
import { operatorDeliveryRoutes, webhookDeliveryRoutes } from './webhook-deliveries.js';
import { webhookRoutes } from './webhooks.js';

export const routeModules: RouteModule[] = [
  healthRoutes,
  authRoutes,
  adminInboundRoutes,
  inboundRoutes,
  identityRoutes,
  accountRoutes,
  refundRoutes,
  integrationRoutes,
  networkRoutes,
  benchmarkSummaryRoutes,
  adminResourceRoutes,
  eventStreamRoutes,
  adminWebhookRoutes,
  webhookRoutes,
  jwksRoutes,
  webhookDeliveryRoutes,
  operatorDeliveryRoutes,
  adminTransactionRoutes,
];

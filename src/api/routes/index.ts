/**
 * Every feature's routes, in one list: app.ts mounts them and /openapi.json describes them.
 *
 * @module api/routes/index
 */
import type { RouteModule } from '../route.js';
import { adminTransactionRoutes } from './admin-transactions.js';
import { authRoutes } from './auth.js';
import { eventStreamRoutes } from './event-stream.js';
import { healthRoutes } from './health.js';
import { inboundRoutes } from './inbound.js';
import { jwksRoutes } from './jwks.js';
import { resourceRoutes } from './resources.js';
import { webhookDeliveryRoutes } from './webhook-deliveries.js';
import { webhookRoutes } from './webhooks.js';

export const routeModules: RouteModule[] = [
  healthRoutes,
  authRoutes,
  inboundRoutes,
  resourceRoutes,
  eventStreamRoutes,
  webhookRoutes,
  jwksRoutes,
  webhookDeliveryRoutes,
  adminTransactionRoutes,
];

import type { RouteModule } from '../route.js';
import { adminTransactionRoutes } from './admin-transactions.js';
import { authRoutes } from './auth.js';
import { healthRoutes } from './health.js';
import { webhookRoutes } from './webhooks.js';

/** Every feature's routes, in one list: app.ts mounts them and /openapi.json describes them. */
export const routeModules: RouteModule[] = [
  healthRoutes,
  authRoutes,
  webhookRoutes, adminTransactionRoutes,
];

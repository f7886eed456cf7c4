/**
 * The resource API: identities, accounts, refund defaults, integrations, network and the benchmark
 * summary.
 *
 * @module api/routes/resources
 */
import type { RouteModule } from '../route.js';
import { accountRoutes } from './accounts.js';
import { adminResourceRoutes } from './admin-resources.js';
import { benchmarkSummaryRoutes } from './benchmark-summary.js';
import { identityRoutes } from './identities.js';
import { integrationRoutes } from './integrations.js';
import { networkRoutes } from './network.js';
import { refundRoutes } from './refunds.js';

export const resourceRoutes: RouteModule = (api, deps) => {
  for (const module of [
    identityRoutes,
    accountRoutes,
    refundRoutes,
    integrationRoutes,
    networkRoutes,
    benchmarkSummaryRoutes,
    adminResourceRoutes,
  ])
    module(api, deps);
};

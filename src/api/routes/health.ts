/**
 * Liveness and readiness probes, without credentials.
 *
 * @module api/routes/health
 */
import { z } from 'zod';
import { isMigrated } from '../../db/migrate.js';
import type { RouteModule } from '../route.js';

export const healthRoutes: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: the process answers',
    tags: ['operations'],
    auth: 'none',
    responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } },
    handler: () => ({ body: { status: 'ok' } }),
  });

  api.route({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: the database answers and is migrated (503 while it cannot be reached)',
    tags: ['operations'],
    auth: 'none',
    responses: {
      200: { description: 'ready', schema: z.object({ status: z.literal('ready') }) },
      503: { description: 'not ready' },
    },
    handler: async ({ ctx }) =>
      (await isMigrated(ctx.db)) ? { body: { status: 'ready' } } : { status: 503, body: { status: 'not ready' } },
  });
};

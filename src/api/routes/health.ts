/**
 * Liveness and readiness probes, without credentials.
 *
 * @module api/routes/health
 */
import { z } from 'zod';
import { storageWatch } from '../../alerts/storage-watch.js';
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
    summary: 'Readiness: the database answers, is migrated and takes writes (503 while it cannot be reached or its storage is full)',
    tags: ['operations'],
    auth: 'none',
    responses: {
      200: { description: 'ready', schema: z.object({ status: z.literal('ready') }) },
      503: { description: 'not ready; `reason` is `storage_full` while the database or its disk is full' },
    },
    handler: async ({ ctx }) => {
      if (!(await isMigrated(ctx.db))) return { status: 503, body: { status: 'not ready' } };
      if (await storageWatch(ctx).stillFull()) return { status: 503, body: { status: 'not ready', reason: 'storage_full' } };
      return { body: { status: 'ready' } };
    },
  });
};

/**
 * GET /v1/transactions/import-benchmark-summary: the import benchmark summary, run on a read worker and capped per organization; the
 * statistic is described in docs/benchmark-summary.md.
 *
 * @module api/routes/benchmark-summary
 */
import { z } from 'zod';
import { BorderdError } from '../../domain/errors.js';
import type { RouteModule } from '../route.js';
import { summaryQuerySchema } from '../../services/benchmark-summary.js';

const summarySchema = z.object({
  hasSignal: z.boolean(),
  sampleSize: z.number().int(),
  totalVolumeUsd: z.string(),
  pointUsd: z.string(),
  lowUsd: z.string(),
  highUsd: z.string(),
  competitiveCount: z.number().int(),
  inLineCount: z.number().int(),
  offMarketCount: z.number().int(),
  concentrationDisclosure: z.boolean(),
  divergenceDisclosure: z.boolean(),
  nearZero: z.boolean(),
});

export const benchmarkSummaryRoutes: RouteModule = (api, { reads }) => {
  /** Summaries running per organization (database.summariesPerOrganization). */
  const running = new Map<string, number>();
  api.route({
    method: 'get',
    path: '/v1/transactions/import-benchmark-summary',
    summary: 'Portfolio-level cost against market over classified transactions',
    description:
      'Only Competitive, InLine and OffMarket transactions are in the sample. A createdAt date filter cannot be combined with an updatedAt one.',
    tags: ['transactions'],
    auth: 'bearer',
    query: summaryQuerySchema,
    responses: {
      200: { description: 'ImportBenchmarkSummary', schema: summarySchema },
      400: { description: 'invalid filter (field named)' },
      429: { description: 'the organization already has database.summariesPerOrganization summaries running (too_many_summaries)' },
    },
    handler: async ({ ctx, query, auth }) => {
      const max = ctx.config.database.summariesPerOrganization;
      const now = running.get(auth.orgId) ?? 0;
      if (now >= max) {
        throw new BorderdError(
          429,
          'too_many_summaries',
          `this organization already has ${now} benchmark summaries running (database.summariesPerOrganization: ${max}); retry when one is done`,
          {
            headers: { 'Retry-After': '1' },
          },
        );
      }
      running.set(auth.orgId, now + 1);
      try {
        return { body: await reads.run('benchmarkSummary', { orgId: auth.orgId, query }) };
      } finally {
        const left = (running.get(auth.orgId) ?? 1) - 1;
        if (left > 0) running.set(auth.orgId, left);
        else running.delete(auth.orgId);
      }
    },
  });
};

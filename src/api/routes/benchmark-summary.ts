import { z } from 'zod';
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

/** Endpoint 8; the statistic is described in docs/benchmark-summary.md. */
export const benchmarkSummaryRoutes: RouteModule = (api, { reads }) => {
  api.route({
    method: 'get',
    path: '/v1/transactions/import-benchmark-summary',
    summary: 'Portfolio-level cost against market over classified transactions',
    description: 'Only Competitive, InLine and OffMarket transactions are in the sample. A createdAt date filter cannot be combined with an updatedAt one.',
    tags: ['transactions'],
    auth: 'bearer',
    query: summaryQuerySchema,
    responses: { 200: { description: 'ImportBenchmarkSummary', schema: summarySchema }, 400: { description: 'invalid filter (field named)' } },
    handler: async ({ query, auth }) => ({ body: await reads.run('benchmarkSummary', { orgId: auth.orgId, query }) }),
  });
};

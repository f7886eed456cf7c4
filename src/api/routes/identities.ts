/**
 * GET /v1/identities: the organization's identities, a page at a time from a read worker. Identity data is
 * masked for redacted tokens (see docs/resources.md).
 *
 * @module api/routes/identities
 */
import { z } from 'zod';
import { integerParam } from '../query-params.js';
import { JsonText, type RouteModule } from '../route.js';
import { identityTypeSchema, listedIdentityDataSchema } from '../../services/identities.js';

const prefix = z.string().min(1, 'must not be empty').max(200);

export const identitiesQuery = z.strictObject({
  name: prefix
    .optional()
    .describe(
      'case-insensitive prefix of firstName, lastName or "firstName lastName" (when both are set); needs a token with piiAccess "all" (403 for "redacted")',
    ),
  email: prefix.optional().describe('case-insensitive prefix of email; needs a token with piiAccess "all" (403 for "redacted")'),
  type: identityTypeSchema.optional(),
  startingAfter: z.string().min(1).max(100).optional().describe('an identity id: results after it'),
  limit: integerParam({ min: 1, max: 100, default: 10 }),
});

export const identitySchema = z.object({
  id: z.string(),
  type: identityTypeSchema,
  deleted: z.boolean(),
  hasComplianceChecks: z.boolean(),
  // Not the input schema: masked values (piiAccess "redacted") do not match its email, phone and date formats.
  data: listedIdentityDataSchema,
});

export const identityRoutes: RouteModule = (api, { reads }) => {
  api.route({
    method: 'get',
    path: '/v1/identities',
    summary: 'List identities',
    description:
      'Ordered by id; hasMore is exact. Tokens with piiAccess "redacted" get masked personal data and may not use the name or email filters ' +
      '(403 problem naming the parameter): a prefix filter would reveal a masked value one character at a time.',
    tags: ['identities'],
    auth: 'bearer',
    query: identitiesQuery,
    responses: {
      200: { description: 'a page of identities', schema: z.object({ hasMore: z.boolean(), data: z.array(identitySchema) }) },
      403: { description: 'the name or email filter with a piiAccess "redacted" token (the detail and errors[].path name the parameter)' },
    },
    handler: async ({ query, auth }) => ({
      body: new JsonText(await reads.run('identitiesPage', { orgId: auth.orgId, filter: query, piiAccess: auth.piiAccess })),
    }),
  });
};

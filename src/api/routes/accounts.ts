/**
 * GET /v1/accounts/{id}: an account by id, its deprecated fields shown only when accounts.legacyFields is on.
 *
 * @module api/routes/accounts
 */
import { idParams } from '../id-params.js';
import { deprecationHeaders, type RouteModule } from '../route.js';
import { accountSchema, findAccount } from '../../services/accounts.js';

/** The deprecated Account fields were removed on this date; the legacy flag brings them back. */
export const ACCOUNT_FIELDS_SUNSET = '2026-09-01';
export const ACCOUNT_FIELDS_DEPRECATED = '2026-01-01';

export const accountRoutes: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: '/v1/accounts/{id}',
    summary: 'Get an account',
    description:
      'The deprecated fields type, pfi and web3Provider appear only when accounts.legacyFields is on, with a Deprecation header.',
    tags: ['accounts'],
    auth: 'bearer',
    params: idParams,
    responses: { 200: { description: 'the account', schema: accountSchema }, 404: { description: "unknown id or another organization's" } },
    handler: async ({ ctx, params, auth }) => {
      const body = await findAccount(ctx, auth.orgId, params.id);
      const headers = ctx.config.accounts.legacyFields
        ? deprecationHeaders({ since: ACCOUNT_FIELDS_DEPRECATED, sunset: ACCOUNT_FIELDS_SUNSET })
        : {};
      return { body, headers };
    },
  });
};

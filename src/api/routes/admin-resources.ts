/**
 * Operator routes: list the organizations, create identities and accounts for one, see and dispatch
 * refund plans.
 *
 * @module api/routes/admin-resources
 */
import { z } from 'zod';
import type { RouteModule } from '../route.js';
import { accountSchema, createAccount, newAccountSchema, presentAccount } from '../../services/accounts.js';
import { createIdentity, identityFlagsSchema, newIdentitySchema, setIdentityFlags } from '../../services/identities.js';
import { dispatchRefundPlan } from '../../services/refunds.js';
import { listOrganizations } from '../../store/organizations.js';
import { listRefundPlans } from '../../store/refund-plans.js';
import { DESTINATION_SOURCES, REFUND_PLAN_KINDS, REFUND_PLAN_STATES } from '../../domain/refund-plan.js';
import { REFUND_DESTINATION_TYPES } from '../../domain/refund-destination.js';
import { NETWORK_IDS } from '../../domain/crypto-address.js';
import { instant } from '../../domain/instant.js';
import { identitySchema } from './identities.js';

const orgParams = z.strictObject({ orgId: z.string().min(1).max(100) });

/** A refund plan as the operator routes answer it (src/store/refund-plans.ts); docs/resources.md describes the states. */
const refundPlanSchema = z.strictObject({
  id: z.string(),
  orgId: z.string(),
  transactionId: z.string(),
  state: z.enum(REFUND_PLAN_STATES),
  kind: z.enum(REFUND_PLAN_KINDS),
  destinationFrom: z
    .enum(DESTINATION_SOURCES)
    .describe('where the destination came from: the transaction, the organization default, or none'),
  destination: z
    .strictObject({ type: z.enum(REFUND_DESTINATION_TYPES), network: z.enum(NETWORK_IDS).optional(), address: z.string().optional() })
    .nullable(),
  autoRefund: z.boolean(),
  reason: z.string(),
  createdAt: instant,
  updatedAt: instant,
  dispatchedAt: instant.nullable(),
  defaultVersion: z.number().int().nullable().describe('the version of the default the destination came from (destinationFrom "default")'),
});

export const adminResourceRoutes: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: '/admin/v1/organizations',
    summary: 'Every organization (id and name)',
    tags: ['admin'],
    auth: 'admin',
    responses: {
      200: { description: 'the organizations', schema: z.object({ data: z.array(z.object({ id: z.string(), name: z.string() })) }) },
    },
    handler: async ({ ctx }) => ({ body: { data: (await listOrganizations(ctx.db)).map((o) => ({ id: o.id, name: o.name })) } }),
  });

  api.route({
    method: 'post',
    path: '/admin/v1/organizations/{orgId}/identities',
    summary: 'Create an identity',
    tags: ['admin'],
    auth: 'admin',
    params: orgParams,
    body: newIdentitySchema,
    responses: { 201: { description: 'the identity', schema: identitySchema }, 404: { description: 'unknown organization' } },
    groupCommit: true,
    handler: async ({ ctx, params, body }) => ({ status: 201, body: await createIdentity(ctx, params.orgId, body) }),
  });

  api.route({
    method: 'patch',
    path: '/admin/v1/organizations/{orgId}/identities/{id}',
    summary: "Set an identity's deleted and hasComplianceChecks flags",
    tags: ['admin'],
    auth: 'admin',
    params: z.strictObject({ orgId: z.string().min(1).max(100), id: z.string().min(1).max(100) }),
    body: identityFlagsSchema,
    responses: { 200: { description: 'the identity', schema: identitySchema }, 404: { description: 'unknown organization or identity' } },
    groupCommit: true,
    handler: async ({ ctx, params, body }) => ({ body: await setIdentityFlags(ctx, params.orgId, params.id, body) }),
  });

  api.route({
    method: 'post',
    path: '/admin/v1/organizations/{orgId}/accounts',
    summary: 'Create an account',
    tags: ['admin'],
    auth: 'admin',
    params: orgParams,
    body: newAccountSchema,
    responses: {
      201: { description: 'the account (deprecated fields as the legacy flag says)', schema: accountSchema },
      404: { description: 'unknown organization or identity' },
    },
    groupCommit: true,
    handler: async ({ ctx, params, body }) => ({
      status: 201,
      body: presentAccount(await createAccount(ctx, params.orgId, body), ctx.config.accounts.legacyFields),
    }),
  });

  api.route({
    method: 'get',
    path: '/admin/v1/refund-plans',
    summary: 'List refund plans',
    tags: ['admin'],
    auth: 'admin',
    query: z.strictObject({ orgId: z.string().min(1).max(100).optional(), state: z.enum(REFUND_PLAN_STATES).optional() }),
    responses: { 200: { description: 'refund plans ordered by id', schema: z.strictObject({ data: z.array(refundPlanSchema) }) } },
    handler: async ({ ctx, query }) => ({ body: { data: await listRefundPlans(ctx.db, query) } }),
  });

  api.route({
    method: 'post',
    path: '/admin/v1/refund-plans/{id}/dispatch',
    summary: 'Dispatch a refund plan in state Created or Paused',
    tags: ['admin'],
    auth: 'admin',
    params: z.strictObject({ id: z.string().min(1).max(100) }),
    responses: {
      200: { description: 'the dispatched plan', schema: refundPlanSchema },
      404: { description: 'unknown plan' },
      409: { description: 'plan is not Created or Paused' },
    },
    groupCommit: true,
    handler: async ({ ctx, params }) => ({ body: await dispatchRefundPlan(ctx, params.id) }),
  });
};

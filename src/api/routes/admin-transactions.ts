/**
 * The operator surface that produces events: orchestrated transactions and their status machine,
 * identity compliance checks, virtual accounts, and synthetic events. Admin token only.
 *
 * @module api/routes/admin-transactions
 */
import { z } from 'zod';
import {
  COMPLIANCE_RESULTS,
  COMPLIANCE_STATUSES,
  createComplianceCheck,
  updateComplianceCheckStatus,
} from '../../services/compliance-checks.js';
import { emitEvent } from '../../services/outbox.js';
import { changeTransactionStatus, createTransaction, createTransactionBody, getTransaction } from '../../services/transactions.js';
import { recordVirtualAccount } from '../../services/virtual-accounts.js';
import { EVENT_TYPES, TRANSACTION_STATUSES, VIRTUAL_ACCOUNT_STATUSES } from '../../verify/events.js';
import type { RouteModule } from '../route.js';

export const statusBody = z.strictObject({
  status: z.enum(TRANSACTION_STATUSES),
  failureReason: z.string().min(1).max(500).optional(),
});

const optText = z.string().min(1).max(200).optional();
const idParams = z.object({ id: z.string().min(1).max(100) });
const any = z.record(z.string(), z.unknown());

export const adminTransactionRoutes: RouteModule = (api) => {
  api.route({
    method: 'post',
    path: '/admin/v1/transactions',
    summary: 'Create an orchestrated transaction (status Submitted; emits Transaction_Created)',
    tags: ['admin'],
    auth: 'admin',
    body: createTransactionBody,
    responses: { 201: { description: 'created', schema: any }, 404: { description: 'unknown organization' } },
    groupCommit: true,
    handler: async ({ ctx, body }) => ({ status: 201, body: await createTransaction(ctx, body) }),
  });
  api.route({
    method: 'get',
    path: '/admin/v1/transactions/{id}',
    summary: 'One orchestrated transaction',
    tags: ['admin'],
    auth: 'admin',
    params: idParams,
    responses: { 200: { description: 'the transaction', schema: any }, 404: { description: 'unknown id' } },
    handler: async ({ ctx, params }) => ({ body: await getTransaction(ctx, params.id) }),
  });
  api.route({
    method: 'post',
    path: '/admin/v1/transactions/{id}/status',
    summary: 'Move a transaction along the status machine (emits Transaction_Updated; 409 for an illegal move)',
    tags: ['admin'],
    auth: 'admin',
    params: idParams,
    body: statusBody,
    responses: { 200: { description: 'moved', schema: any }, 404: { description: 'unknown id' }, 409: { description: 'illegal move' } },
    groupCommit: true,
    handler: async ({ ctx, params, body }) => ({ body: await changeTransactionStatus(ctx, params.id, body.status, body.failureReason) }),
  });
  api.route({
    method: 'post',
    path: '/admin/v1/compliance-checks',
    summary: 'Start an identity compliance check (status Pending; emits IdentityComplianceCheck_Updated)',
    tags: ['admin'],
    auth: 'admin',
    body: z.strictObject({ orgId: z.string().min(1), identityId: z.string().min(1).max(200) }),
    responses: { 201: { description: 'created', schema: any } },
    groupCommit: true,
    handler: async ({ ctx, body }) => ({ status: 201, body: await createComplianceCheck(ctx, body) }),
  });
  api.route({
    method: 'post',
    path: '/admin/v1/compliance-checks/{id}/status',
    summary: 'Move a compliance check (Completed emits IdentityComplianceCheck_Completed)',
    tags: ['admin'],
    auth: 'admin',
    params: idParams,
    body: z.strictObject({
      status: z.enum(COMPLIANCE_STATUSES),
      result: z.enum(COMPLIANCE_RESULTS).optional(),
      reason: z.string().min(1).max(500).optional(),
    }),
    responses: { 200: { description: 'moved', schema: any }, 409: { description: 'already Completed' } },
    groupCommit: true,
    handler: async ({ ctx, params, body }) => ({ body: await updateComplianceCheckStatus(ctx, params.id, body) }),
  });
  api.route({
    method: 'post',
    path: '/admin/v1/virtual-accounts',
    summary: 'Record a virtual account outcome (emits VirtualAccount_Created or VirtualAccount_CreationFailed)',
    tags: ['admin'],
    auth: 'admin',
    body: z.strictObject({
      orgId: z.string().min(1),
      status: z.enum(VIRTUAL_ACCOUNT_STATUSES),
      identityId: optText,
      accountId: optText,
      currency: z.string().min(2).max(20).optional(),
      failureReason: z.string().min(1).max(500).optional(),
    }),
    responses: { 201: { description: 'recorded', schema: any } },
    groupCommit: true,
    handler: async ({ ctx, body }) => ({ status: 201, body: await recordVirtualAccount(ctx, body) }),
  });
  api.route({
    method: 'post',
    path: '/admin/v1/events',
    summary: 'Emit a synthetic event of any type through the outbox (for testing receivers)',
    tags: ['admin'],
    auth: 'admin',
    body: z.strictObject({ orgId: z.string().min(1), type: z.enum(EVENT_TYPES), data: any.optional() }),
    responses: { 201: { description: 'the event as it is sent', schema: any } },
    groupCommit: true,
    handler: async ({ ctx, body }) => ({ status: 201, body: (await emitEvent(ctx, body.orgId, body.type, body.data)).event }),
  });
};

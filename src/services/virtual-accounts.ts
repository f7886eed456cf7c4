/**
 * Records the outcome of a virtual account request: Created emits VirtualAccount_Created,
 * CreationFailed (with a failureReason) emits VirtualAccount_CreationFailed.
 *
 * @module services/virtual-accounts
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { badRequest, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { enqueueEvent, inOutboxTransaction } from '../delivery/enqueue.js';
import { getOrganization } from '../store/organizations.js';
import { insertVirtualAccount, type VirtualAccount } from '../store/virtual-accounts.js';
import type { VirtualAccountStatus } from '../verify/events.js';

export async function recordVirtualAccount(
  ctx: AppContext,
  input: {
    orgId: string;
    status: VirtualAccountStatus;
    identityId?: string | undefined;
    accountId?: string | undefined;
    currency?: string | undefined;
    failureReason?: string | undefined;
  },
): Promise<VirtualAccount> {
  if (!(await getOrganization(ctx.db, input.orgId))) throw notFound(`organization ${input.orgId}`);
  if (input.status === 'CreationFailed' && !input.failureReason) {
    throw badRequest('failure_reason_required', 'failureReason is required when status is CreationFailed', [
      { path: 'body.failureReason', message: 'required when status is CreationFailed' },
    ]);
  }
  return await inOutboxTransaction(ctx, async (ctx) => {
    const now = ctx.clock.now();
    const v: VirtualAccount = {
      id: newId('vac', now),
      orgId: input.orgId,
      identityId: input.identityId ?? null,
      accountId: input.accountId ?? null,
      currency: input.currency ?? null,
      status: input.status,
      failureReason: input.status === 'CreationFailed' ? (input.failureReason ?? null) : null,
      createdAt: isoAt(now),
      updatedAt: isoAt(now),
    };
    await insertVirtualAccount(ctx.db, v);
    const { orgId: _org, ...data } = v;
    await enqueueEvent(ctx, v.orgId, v.status === 'Created' ? 'VirtualAccount_Created' : 'VirtualAccount_CreationFailed', data);
    return v;
  });
}

/**
 * Identity compliance checks: Pending -> InProgress -> Completed (with result Approved or
 * Rejected). Every change but the last emits IdentityComplianceCheck_Updated; reaching Completed
 * emits IdentityComplianceCheck_Completed. Completed is final.
 *
 * @module services/compliance-checks
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { badRequest, conflict, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { enqueueEvent, inOutboxTransaction } from '../delivery/enqueue.js';
import { getComplianceCheck, insertComplianceCheck, updateComplianceCheck, type ComplianceCheck } from '../store/compliance-checks.js';
import { getOrganization } from '../store/organizations.js';
import type { ComplianceCheckEventData, ComplianceResult, ComplianceStatus } from '../verify/events.js';

// One definition, shared with the published event types (borderd/verify).
export { COMPLIANCE_RESULTS, COMPLIANCE_STATUSES, type ComplianceResult, type ComplianceStatus } from '../verify/events.js';

const eventData = (c: ComplianceCheck): ComplianceCheckEventData => ({
  id: c.id,
  identityId: c.identityId,
  status: c.status,
  result: c.result,
  reason: c.reason,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export async function createComplianceCheck(ctx: AppContext, input: { orgId: string; identityId: string }): Promise<ComplianceCheck> {
  if (!(await getOrganization(ctx.db, input.orgId))) throw notFound(`organization ${input.orgId}`);
  return await inOutboxTransaction(ctx, async (ctx) => {
    const now = ctx.clock.now();
    const c: ComplianceCheck = {
      id: newId('cmp', now),
      orgId: input.orgId,
      identityId: input.identityId,
      status: 'Pending',
      result: null,
      reason: null,
      createdAt: isoAt(now),
      updatedAt: isoAt(now),
    };
    await insertComplianceCheck(ctx.db, c);
    await enqueueEvent(ctx, c.orgId, 'IdentityComplianceCheck_Updated', eventData(c));
    return c;
  });
}

export async function updateComplianceCheckStatus(
  ctx: AppContext,
  id: string,
  input: { status: ComplianceStatus; result?: ComplianceResult | undefined; reason?: string | undefined },
): Promise<ComplianceCheck> {
  if (input.status === 'Completed' && !input.result)
    throw badRequest('result_required', 'result is required when status is Completed', [
      { path: 'body.result', message: 'required when status is Completed' },
    ]);
  if (input.status !== 'Completed' && input.result)
    throw badRequest('result_not_allowed', 'result is only given with status Completed', [
      { path: 'body.result', message: 'only with status Completed' },
    ]);
  return await inOutboxTransaction(ctx, async (ctx) => {
    const current = await getComplianceCheck(ctx.db, id);
    if (!current) throw notFound(`compliance check ${id}`);
    if (current.status === 'Completed') throw conflict('compliance_check_completed', `compliance check ${id} is already Completed`);
    const at = isoAt(ctx.clock.now());
    const c: ComplianceCheck = {
      ...current,
      status: input.status,
      result: input.result ?? null,
      reason: input.reason ?? null,
      updatedAt: at,
    };
    await updateComplianceCheck(ctx.db, c);
    await enqueueEvent(
      ctx,
      c.orgId,
      c.status === 'Completed' ? 'IdentityComplianceCheck_Completed' : 'IdentityComplianceCheck_Updated',
      eventData(c),
    );
    return c;
  });
}

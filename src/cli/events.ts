import type { CommandModule } from 'yargs';
import { COMPLIANCE_RESULTS, COMPLIANCE_STATUSES, createComplianceCheck, updateComplianceCheckStatus, type ComplianceResult, type ComplianceStatus } from '../services/compliance-checks.js';
import { emitEvent } from '../services/outbox.js';
import { recordVirtualAccount } from '../services/virtual-accounts.js';
import { EVENT_TYPES, VIRTUAL_ACCOUNT_STATUSES, type EventType, type VirtualAccountStatus } from '../verify/events.js';
import { parseJsonOption } from './tx.js';
import { output, runWithContext, withCommonOptions, type CommonArgs } from './context.js';

/** `borderd events`: emit events through the outbox (synthetic ones, compliance checks, virtual accounts). */
export const eventsCommand: CommandModule = {
  command: 'events',
  describe: 'Emit events through the outbox (synthetic, compliance checks, virtual accounts)',
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { org: string; type: EventType; data?: string }>(
        'emit',
        'Emit a synthetic event of any type to every webhook of the organization',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true })
            .option('type', { choices: EVENT_TYPES, demandOption: true })
            .option('data', { type: 'string', describe: 'JSON object merged into the sample data' }) as never,
        (args) =>
          runWithContext(args, (ctx) => {
            const { event } = emitEvent(ctx, args.org, args.type, parseJsonOption(args.data, 'data'));
            output(args, event, () => `emitted ${event.id} ${event.type} for ${event.organizationId}`);
          }),
      )
      .command<CommonArgs & { org: string; identity: string }>(
        'compliance-start',
        'Start an identity compliance check (emits IdentityComplianceCheck_Updated)',
        (c) => c.option('org', { type: 'string', demandOption: true }).option('identity', { type: 'string', demandOption: true }) as never,
        (args) =>
          runWithContext(args, (ctx) => {
            const check = createComplianceCheck(ctx, { orgId: args.org, identityId: args.identity });
            output(args, check, () => `started ${check.id} (${check.status})`);
          }),
      )
      .command<CommonArgs & { id: string; status: ComplianceStatus; result?: ComplianceResult; reason?: string }>(
        'compliance-status <id> <status>',
        'Move a compliance check (Completed, with --result, emits IdentityComplianceCheck_Completed)',
        (c) =>
          c
            .positional('id', { type: 'string', demandOption: true })
            .positional('status', { choices: COMPLIANCE_STATUSES, demandOption: true })
            .option('result', { choices: COMPLIANCE_RESULTS })
            .option('reason', { type: 'string' }) as never,
        (args) =>
          runWithContext(args, (ctx) => {
            const check = updateComplianceCheckStatus(ctx, args.id, { status: args.status, result: args.result, reason: args.reason });
            output(args, check, () => `moved ${check.id} to ${check.status}${check.result ? ` (${check.result})` : ''}`);
          }),
      )
      .command<CommonArgs & { org: string; status: VirtualAccountStatus; identity?: string; account?: string; currency?: string; failureReason?: string }>(
        'virtual-account',
        'Record a virtual account outcome (emits VirtualAccount_Created or VirtualAccount_CreationFailed)',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true })
            .option('status', { choices: VIRTUAL_ACCOUNT_STATUSES, demandOption: true })
            .option('identity', { type: 'string' })
            .option('account', { type: 'string' })
            .option('currency', { type: 'string' })
            .option('failure-reason', { type: 'string' }) as never,
        (args) =>
          runWithContext(args, (ctx) => {
            const v = recordVirtualAccount(ctx, { orgId: args.org, status: args.status, identityId: args.identity, accountId: args.account, currency: args.currency, failureReason: args.failureReason });
            output(args, v, () => `recorded ${v.id} (${v.status})`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};

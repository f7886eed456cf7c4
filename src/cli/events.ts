/**
 * `borderd events`: emit events through the outbox (synthetic ones, compliance checks, virtual
 * accounts).
 *
 * @module cli/events
 */
import type { CommandModule } from 'yargs';
import {
  COMPLIANCE_RESULTS,
  COMPLIANCE_STATUSES,
  createComplianceCheck,
  updateComplianceCheckStatus,
  type ComplianceResult,
  type ComplianceStatus,
} from '../services/compliance-checks.js';
import { emitEvent } from '../services/outbox.js';
import { recordVirtualAccount } from '../services/virtual-accounts.js';
import { EVENT_TYPES, VIRTUAL_ACCOUNT_STATUSES, type EventType, type VirtualAccountStatus } from '../verify/events.js';
import { parseJsonOption } from './tx.js';
import { output, runWithContext, withCommonOptions, type CommonArgs } from './context.js';

export const eventsCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { org: string; type: EventType; data?: string }>(
        'emit',
        'Emit a synthetic event of any type to every webhook of the organization',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('type', { choices: EVENT_TYPES, demandOption: true, describe: 'event type' })
            .option('data', { type: 'string', describe: 'JSON object merged into the sample data' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const { event } = await emitEvent(ctx, args.org, args.type, parseJsonOption(args.data, 'data'));
            output(args, event, () => `emitted ${event.id} ${event.type} for ${event.organizationId}`);
          }),
      )
      .command<CommonArgs & { org: string; identity: string }>(
        'compliance-start',
        'Start an identity compliance check (emits IdentityComplianceCheck_Updated)',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('identity', { type: 'string', demandOption: true, describe: 'identity id (idn_…)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const check = await createComplianceCheck(ctx, { orgId: args.org, identityId: args.identity });
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
            .option('result', { choices: COMPLIANCE_RESULTS, describe: 'with Completed' })
            .option('reason', { type: 'string', describe: 'why (shown as reason in the event)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const check = await updateComplianceCheckStatus(ctx, args.id, {
              status: args.status,
              result: args.result,
              reason: args.reason,
            });
            output(args, check, () => `moved ${check.id} to ${check.status}${check.result ? ` (${check.result})` : ''}`);
          }),
      )
      .command<
        CommonArgs & {
          org: string;
          status: VirtualAccountStatus;
          identity?: string;
          account?: string;
          currency?: string;
          failureReason?: string;
        }
      >(
        'virtual-account',
        'Record a virtual account outcome (emits VirtualAccount_Created or VirtualAccount_CreationFailed)',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('status', { choices: VIRTUAL_ACCOUNT_STATUSES, demandOption: true, describe: 'the outcome' })
            .option('identity', { type: 'string', describe: 'identity id (idn_…)' })
            .option('account', { type: 'string', describe: 'account id (acc_…)' })
            .option('currency', { type: 'string', describe: 'currency code, e.g. EUR' })
            .option('failure-reason', { type: 'string', describe: 'why it failed (CreationFailed)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const v = await recordVirtualAccount(ctx, {
              orgId: args.org,
              status: args.status,
              identityId: args.identity,
              accountId: args.account,
              currency: args.currency,
              failureReason: args.failureReason,
            });
            output(args, v, () => `recorded ${v.id} (${v.status})`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};

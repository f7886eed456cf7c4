/**
 * `borderd refunds`: refund plans (list, dispatch).
 *
 * @module cli/refunds
 */
import type { CommandModule } from 'yargs';
import { REFUND_PLAN_STATES, type RefundPlanState } from '../domain/refund-plan.js';
import { dispatchRefundPlan } from '../services/refunds.js';
import { listRefundPlans } from '../store/refund-plans.js';
import { output, runWithContext, table, withCommonOptions, type CommonArgs } from './context.js';

export const refundsCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { org?: string; state?: RefundPlanState }>(
        'list',
        'List refund plans',
        (c) =>
          c
            .option('org', { type: 'string', describe: 'only this organization' })
            .option('state', { choices: REFUND_PLAN_STATES, describe: 'only plans in this state' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const plans = await listRefundPlans(ctx.db, { orgId: args.org, state: args.state });
            output(args, plans, () => table(plans, ['id', 'orgId', 'transactionId', 'state', 'kind', 'destinationFrom', 'createdAt']));
          }),
      )
      .command<CommonArgs & { id: string }>(
        'dispatch <id>',
        'Dispatch a refund plan in state Created or Paused',
        (c) => c.positional('id', { type: 'string', demandOption: true }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const plan = await dispatchRefundPlan(ctx, args.id);
            output(args, plan, () => `dispatched refund plan ${plan.id} (transaction ${plan.transactionId})`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};

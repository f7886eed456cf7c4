/**
 * `borderd tx`: orchestrated transactions and their status machine, the same use cases as
 * /admin/v1/transactions.
 *
 * @module cli/tx
 */
import type { CommandModule } from 'yargs';
import { changeTransactionStatus, createTransaction, createTransactionBody, getTransaction } from '../services/transactions.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES, type TransactionStatus, type TransactionType } from '../verify/events.js';
import { badRequest } from '../domain/errors.js';
import { zodIssuesToFieldErrors } from '../domain/field-errors.js';
import { output, runWithContext, withCommonOptions, type CommonArgs } from './context.js';

interface CreateArgs extends CommonArgs {
  org: string;
  type: TransactionType;
  amount?: string;
  currency?: string;
  network?: string;
  source?: string;
  destination?: string;
  refundDestination?: string;
  identityId?: string;
  accountId?: string;
}

/** A JSON-object option (--source, --data, ...); a clear refusal naming the option otherwise. */
export function parseJsonOption(value: string | undefined, name: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('invalid_json', `--${name} must be a JSON object`, [{ path: name, message: 'must be a JSON object' }]);
  }
  return parsed as Record<string, unknown>;
}

const summary = (t: { id: string; type: string; status: string; orgId: string }) => `${t.id}  ${t.type}  ${t.status}  (${t.orgId})`;

export const txCommand: CommandModule = {
  builder: (y) =>
    withCommonOptions(y)
      .command<CreateArgs>(
        'create',
        'Create a transaction (status Submitted; emits Transaction_Created)',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('type', { choices: TRANSACTION_TYPES, demandOption: true, describe: 'operation kind' })
            .option('amount', { type: 'string', describe: 'decimal string, e.g. 125.50' })
            .option('currency', { type: 'string', describe: 'currency or asset code, e.g. USD, USDC' })
            .option('network', { type: 'string', describe: 'network: POLYGON, ETHEREUM, TRON, BASE, OPTIMISM, BITCOIN, SOLANA or CELO' })
            .option('source', { type: 'string', describe: 'JSON object' })
            .option('destination', { type: 'string', describe: 'JSON object' })
            .option('refund-destination', { type: 'string', describe: "JSON object: this transaction's refund destination" })
            .option('identity-id', { type: 'string', describe: 'identity id (idn_…)' })
            .option('account-id', { type: 'string', describe: 'account id (acc_…)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const parsed = createTransactionBody.safeParse({
              orgId: args.org,
              type: args.type,
              amount: args.amount,
              currency: args.currency,
              network: args.network,
              source: parseJsonOption(args.source, 'source'),
              destination: parseJsonOption(args.destination, 'destination'),
              refundDestination: parseJsonOption(args.refundDestination, 'refund-destination'),
              identityId: args.identityId,
              accountId: args.accountId,
            });
            if (!parsed.success) {
              const errors = zodIssuesToFieldErrors(parsed.error, 'options');
              throw badRequest('validation_failed', 'invalid options', errors);
            }
            const t = await createTransaction(ctx, parsed.data);
            output(args, t, () => `created ${summary(t)}`);
          }),
      )
      .command<CommonArgs & { id: string; status: TransactionStatus; failureReason?: string }>(
        'status <id> <status>',
        'Move a transaction to a status (emits Transaction_Updated; refused when the state machine forbids it)',
        (c) =>
          c
            .positional('id', { type: 'string', demandOption: true })
            .positional('status', { choices: TRANSACTION_STATUSES, demandOption: true })
            .option('failure-reason', { type: 'string', describe: 'why it failed (status Failed)' }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const t = await changeTransactionStatus(ctx, args.id, args.status, args.failureReason);
            output(args, t, () => `moved ${summary(t)}`);
          }),
      )
      .command<CommonArgs & { id: string }>(
        'show <id>',
        'Show a transaction',
        (c) => c.positional('id', { type: 'string', demandOption: true }) as never,
        (args) =>
          runWithContext(args, async (ctx) => {
            const t = await getTransaction(ctx, args.id);
            output(args, t, () => JSON.stringify(t, null, 2));
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};

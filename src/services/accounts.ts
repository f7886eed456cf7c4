/**
 * Accounts as the API creates and shows them; the deprecated fields are kept and shown only when
 * accounts.legacyFields is on.
 *
 * @module services/accounts
 */
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { instant } from '../domain/instant.js';
import { notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { getIdentity } from '../store/identities.js';
import { getOrganization } from '../store/organizations.js';
import { getAccount, insertAccount, type AccountRecord } from '../store/accounts.js';

const ACCOUNT_TYPES = z.enum(['wallet', 'institution']);

const code = z.string().regex(/^[A-Z0-9]{2,12}$/, 'must be an upper-case asset or currency code');

export const newAccountSchema = z.strictObject({
  provider: z.string().min(1).max(100),
  name: z.string().min(1).max(200),
  identityId: z.string().min(1).max(100).optional(),
  assets: z
    .array(z.strictObject({ asset: code, address: z.string().min(1).max(200) }))
    .max(100)
    .default([]),
  fiats: z
    .array(z.strictObject({ fiat: code }))
    .max(100)
    .default([]),
  /** The deprecated fields, accepted so that the legacy flag can still show them. */
  type: ACCOUNT_TYPES.optional(),
  pfi: z.string().min(1).max(100).optional(),
  web3Provider: z.string().min(1).max(100).optional(),
});
export type NewAccount = z.output<typeof newAccountSchema>;

/** An account as the API answers it: the deprecated fields only when accounts.legacyFields is on. */
export const accountSchema = z.object({
  id: z.string(),
  provider: z.string(),
  type: ACCOUNT_TYPES.nullable().optional().describe('deprecated; only with accounts.legacyFields'),
  pfi: z.string().nullable().optional().describe('deprecated; only with accounts.legacyFields'),
  web3Provider: z.string().nullable().optional().describe('deprecated; only with accounts.legacyFields'),
  name: z.string(),
  assets: z.array(z.object({ id: z.string(), asset: z.string(), address: z.string() })),
  fiats: z.array(z.object({ id: z.string(), fiat: z.string() })),
  identityId: z.string().nullable(),
  createdAt: instant,
});
export type Account = z.infer<typeof accountSchema>;

export async function createAccount(ctx: AppContext, orgId: string, input: NewAccount): Promise<AccountRecord> {
  if (!(await getOrganization(ctx.db, orgId))) throw notFound(`organization ${orgId}`);
  if (input.identityId && !(await getIdentity(ctx.db, orgId, input.identityId))) throw notFound(`identity ${input.identityId}`);
  const now = ctx.clock.now();
  const account: AccountRecord = {
    id: newId('acc', now),
    orgId,
    provider: input.provider,
    name: input.name,
    assets: input.assets.map((a) => ({ id: newId('ast', now), ...a })),
    fiats: input.fiats.map((f) => ({ id: newId('fia', now), ...f })),
    identityId: input.identityId ?? null,
    legacy: { type: input.type ?? null, pfi: input.pfi ?? null, web3Provider: input.web3Provider ?? null },
    createdAt: isoAt(now),
  };
  await insertAccount(ctx.db, account);
  return account;
}

/** The Account as the API shows it: the deprecated fields only when accounts.legacyFields is on. */
export function presentAccount(a: AccountRecord, legacyFields: boolean): Account {
  // The type is stored as newAccountSchema took it: one of ACCOUNT_TYPES, or null.
  const type = a.legacy.type as Account['type'];
  const legacy = legacyFields ? { type, pfi: a.legacy.pfi, web3Provider: a.legacy.web3Provider } : {};
  return {
    id: a.id,
    provider: a.provider,
    ...legacy,
    name: a.name,
    assets: a.assets,
    fiats: a.fiats,
    identityId: a.identityId,
    createdAt: a.createdAt,
  };
}

export async function findAccount(ctx: AppContext, orgId: string, id: string): Promise<Account> {
  const a = await getAccount(ctx.db, orgId, id);
  if (!a) throw notFound(`account ${id}`);
  return presentAccount(a, ctx.config.accounts.legacyFields);
}

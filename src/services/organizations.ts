/**
 * Organizations and their API clients: creation, a client's secret shown once and stored only as
 * its hash, revocation, and the development organization of a first start.
 *
 * @module services/organizations
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { badRequest, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { hashSecret } from '../security/secret-hash.js';
import { type ApiClient, insertApiClient, type PiiAccess, revokeApiClient, getApiClient } from '../store/api-clients.js';
import { countOrganizations, getOrganization, insertOrganization, type Organization } from '../store/organizations.js';
import { holdLock, withTransaction } from '../db/database.js';

export async function createOrganization(ctx: AppContext, name: string): Promise<Organization> {
  const org = newOrganization(ctx, name);
  await insertOrganization(ctx.db, org);
  return org;
}

/** A validated organization row, not yet stored. */
function newOrganization(ctx: AppContext, name: string): Organization {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw badRequest('invalid_name', 'name must be 1 to 200 characters');
  const now = ctx.clock.now();
  return { id: newId('org', now), name: trimmed, createdAt: isoAt(now) };
}

export interface CreatedClient extends ApiClient {
  /** Shown once; only its scrypt hash is stored. */
  clientSecret: string;
}

export async function createApiClient(
  ctx: AppContext,
  input: { orgId: string; piiAccess?: PiiAccess; name?: string | undefined },
): Promise<CreatedClient> {
  if (!(await getOrganization(ctx.db, input.orgId))) throw notFound(`organization ${input.orgId}`);
  const { client, clientSecret, secretHash } = await newClient(ctx, input);
  await insertApiClient(ctx.db, client, secretHash);
  return { ...client, clientSecret };
}

/** A client's row, its secret (shown once) and the secret's scrypt hash (the only thing stored). */
async function newClient(
  ctx: AppContext,
  input: { orgId: string; piiAccess?: PiiAccess; name?: string | undefined },
): Promise<{ client: ApiClient; clientSecret: string; secretHash: string }> {
  const now = ctx.clock.now();
  const clientSecret = `bsk_${randomBytes(32).toString('base64url')}`;
  const client: ApiClient = {
    id: newId('cli', now),
    orgId: input.orgId,
    name: input.name ?? null,
    piiAccess: input.piiAccess ?? 'all',
    createdAt: isoAt(now),
    revokedAt: null,
  };
  return { client, clientSecret, secretHash: await hashSecret(clientSecret) };
}

export async function revokeClient(ctx: AppContext, id: string): Promise<ApiClient> {
  if (!(await revokeApiClient(ctx.db, id, isoAt(ctx.clock.now())))) {
    const existing = await getApiClient(ctx.db, id);
    if (!existing) throw notFound(`client ${id}`);
    return existing; // already revoked: revoking again is harmless
  }
  return (await getApiClient(ctx.db, id))!;
}

/**
 * First start on an empty database: a development organization and one client, so a new user can
 * fetch a token right away. Returns undefined when the database already has organizations. The
 * organization and its client are written in one transaction, under a lock, that checks the database
 * is still empty, so two daemons starting at once create one pair, and a failure leaves neither.
 */
export async function bootstrapDevelopment(ctx: AppContext): Promise<{ org: Organization; client: CreatedClient } | undefined> {
  if ((await countOrganizations(ctx.db)) > 0) return undefined;
  const org = newOrganization(ctx, 'Development');
  // scrypt is asynchronous, so the hash is made before the transaction opens.
  const { client, clientSecret, secretHash } = await newClient(ctx, { orgId: org.id, name: 'development' });
  const created = await withTransaction(ctx, async (ctx) => {
    await holdLock(ctx.db, 'bootstrap');
    if ((await countOrganizations(ctx.db)) > 0) return false;
    await insertOrganization(ctx.db, org);
    await insertApiClient(ctx.db, client, secretHash);
    return true;
  });
  return created ? { org, client: { ...client, clientSecret } } : undefined;
}

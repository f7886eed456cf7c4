/**
 * Which organization a card-network ica belongs to: the config file's mappings over the table's,
 * and the notifications a new or changed mapping queues for decryption.
 *
 * @module inbound/ica-mapping
 */
import { withTransaction } from '../db/database.js';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { badRequest, conflict, notFound } from '../domain/errors.js';
import { getOrganization } from '../store/organizations.js';
import {
  deleteIcaMapping,
  getIcaMapping,
  listIcaMappings,
  matchUnmatched,
  reassignUndecrypted,
  unmatchedIcas,
  upsertIcaMapping,
} from '../store/inbound-events.js';

export interface IcaMappingView {
  ica: string;
  organizationId: string;
  source: 'config' | 'database';
  createdAt: string | null;
}

/** Config (inbound.icaOrganizations) wins over the table, so a deployment file is the last word. */
export async function organizationForIca(ctx: AppContext, ica: string): Promise<string | undefined> {
  return ctx.config.inbound.icaOrganizations[ica] ?? (await getIcaMapping(ctx.db, ica))?.orgId;
}

export async function listMappings(ctx: AppContext): Promise<IcaMappingView[]> {
  const fromConfig = Object.entries(ctx.config.inbound.icaOrganizations).map(([ica, organizationId]) => ({
    ica,
    organizationId,
    source: 'config' as const,
    createdAt: null,
  }));
  const configured = new Set(fromConfig.map((m) => m.ica));
  const fromDb = (await listIcaMappings(ctx.db))
    .filter((m) => !configured.has(m.ica))
    .map((m) => ({ ica: m.ica, organizationId: m.orgId, source: 'database' as const, createdAt: m.createdAt }));
  return [...fromConfig, ...fromDb].sort((a, b) => a.ica.localeCompare(b.ica));
}

/**
 * Maps an ica to an organization and queues the notifications that were waiting for it. A remap
 * also moves the ica's notifications not decrypted yet from the organization it mapped to before
 * (mapped to the wrong one, their keys could not open them).
 */
export async function mapIca(ctx: AppContext, ica: string, orgId: string): Promise<{ mapping: IcaMappingView; requeued: number }> {
  if (!ica || ica.length > 255) throw badRequest('invalid_ica', 'ica must be 1 to 255 characters');
  if (!(await getOrganization(ctx.db, orgId))) throw notFound(`organization ${orgId}`);
  const configured = ctx.config.inbound.icaOrganizations[ica];
  if (configured !== undefined && !(await getOrganization(ctx.db, configured))) {
    throw conflict(
      'ica_config_invalid',
      `inbound.icaOrganizations maps ica ${ica} to organization ${configured}, which does not exist, and the config file wins; fix it there first`,
    );
  }
  // The organization the ica now resolves to (organizationForIca): the config file's wins over this mapping.
  const effective = configured ?? orgId;
  const at = isoAt(ctx.clock.now());
  const requeued = await withTransaction(ctx, async (ctx) => {
    await upsertIcaMapping(ctx.db, { ica, orgId, createdAt: at });
    return (await matchUnmatched(ctx.db, ica, effective, at)) + (await reassignUndecrypted(ctx.db, ica, effective, at));
  });
  if (requeued > 0) ctx.signals.inbound.emit();
  const mapping = (await listMappings(ctx)).find((m) => m.ica === ica)!;
  return { mapping, requeued };
}

export async function unmapIca(ctx: AppContext, ica: string): Promise<void> {
  if (!(await deleteIcaMapping(ctx.db, ica))) throw notFound(`ica mapping ${ica}`);
}

/**
 * Unmatched rows whose ica has since gained a mapping (e.g. added to the config file) are queued.
 * Runs on the daemon's thread at each decryption pass, so it never waits for a write lock another
 * process holds (a CLI import): an ica it could not queue now is queued by a later pass.
 */
export async function matchPendingIcas(ctx: AppContext): Promise<number> {
  const nowIso = isoAt(ctx.clock.now());
  let total = 0;
  for (const ica of await unmatchedIcas(ctx.db)) {
    const orgId = await organizationForIca(ctx, ica);
    if (!orgId || !(await getOrganization(ctx.db, orgId))) continue;
    const queued = await ctx.db.tryTransaction(async (tx) => await matchUnmatched(tx, ica, orgId, nowIso));
    if (!queued.ok) break;
    total += queued.value;
  }
  return total;
}

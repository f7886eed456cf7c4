/**
 * Integration credentials per organization and provider. The adapter call happens before the write
 * and outside any SQLite transaction; credentials are sealed with AES-256-GCM, bound to the
 * (organization, provider) row. A provider with no baseUrl is not called: the credentials are
 * stored as given (development profile), and company credentials answer no network addresses.
 *
 * @module services/integrations
 */
import type { AppContext } from '../context.js';
import type { IntegrationProviderConfig } from '../config/schema.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { linkCompany, type CompanyCredentials, type IntegrationNetworkAddress } from '../integrations/company-credentials.js';
import { registerPartnerKey, type PartnerKey } from '../integrations/partner-key.js';
import { verifyPfiClient, type PfiClientCredentials } from '../integrations/pfi-client-credentials.js';
import { getIntegration, upsertIntegration, type IntegrationRow } from '../store/integrations.js';

export const credentialsContext = (orgId: string, provider: string): string => `integrations.credentials:${orgId}:${provider}`;

async function store(
  ctx: AppContext,
  orgId: string,
  provider: string,
  cfg: IntegrationProviderConfig,
  credentials: object,
  result: Record<string, unknown>,
): Promise<IntegrationRow> {
  const now = ctx.clock.now();
  const row = await upsertIntegration(ctx.db, {
    id: newId('int', now),
    orgId,
    provider,
    kind: cfg.kind,
    credentialsEnc: ctx.secrets.seal(JSON.stringify(credentials), credentialsContext(orgId, provider)),
    result,
    createdAt: isoAt(now),
    updatedAt: isoAt(now),
  });
  ctx.log.info(
    { orgId, provider, kind: cfg.kind, integrationId: row.id, providerCalled: Boolean(cfg.baseUrl) },
    'integration credentials stored',
  );
  return row;
}

export async function putCompanyCredentials(
  ctx: AppContext,
  orgId: string,
  provider: string,
  cfg: IntegrationProviderConfig,
  creds: CompanyCredentials,
) {
  const addresses: IntegrationNetworkAddress[] = cfg.baseUrl
    ? await linkCompany(cfg.baseUrl, creds, ctx.config.integrations.timeoutMs)
    : [];
  await store(ctx, orgId, provider, cfg, creds, { companyId: creds.companyId, integrationNetworkAddresses: addresses });
  return { provider, integrationNetworkAddresses: addresses };
}

export async function putPfiClientCredentials(
  ctx: AppContext,
  orgId: string,
  provider: string,
  cfg: IntegrationProviderConfig,
  creds: PfiClientCredentials,
) {
  if (cfg.baseUrl) await verifyPfiClient(cfg.baseUrl, creds, ctx.config.integrations.timeoutMs);
  await store(ctx, orgId, provider, cfg, creds, { clientId: creds.clientId });
  return { clientId: creds.clientId, clientSecret: creds.clientSecret };
}

export async function putPartnerKey(ctx: AppContext, orgId: string, provider: string, cfg: IntegrationProviderConfig, creds: PartnerKey) {
  if (cfg.baseUrl) await registerPartnerKey(cfg.baseUrl, creds, ctx.config.integrations.timeoutMs);
  const row = await store(ctx, orgId, provider, cfg, creds, {});
  return { id: row.id, provider, kind: row.kind, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

/** The stored credentials, opened (for adapters that call the provider later). */
export async function openCredentials(ctx: AppContext, orgId: string, provider: string): Promise<Record<string, unknown> | undefined> {
  const row = await getIntegration(ctx.db, orgId, provider);
  return row && (JSON.parse(ctx.secrets.open(row.credentialsEnc, credentialsContext(orgId, provider))) as Record<string, unknown>);
}

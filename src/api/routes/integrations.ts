/**
 * PUT /v1/organizations/integrations/{provider}: one route per provider path name in integrations.providers, so each gets
 * its own schema, deprecation headers and OpenAPI entry.
 *
 * @module api/routes/integrations
 */
import { z } from 'zod';
import type { IntegrationProviderConfig } from '../../config/schema.js';
import { companyCredentialsSchema } from '../../integrations/company-credentials.js';
import { partnerKeySchema } from '../../integrations/partner-key.js';
import { pfiClientCredentialsSchema } from '../../integrations/pfi-client-credentials.js';
import { putCompanyCredentials, putPartnerKey, putPfiClientCredentials } from '../../services/integrations.js';
import type { ApiRegistry, Deprecation, RouteModule } from '../route.js';
import { instant } from '../../domain/instant.js';

const providerErrors = {
  400: { description: 'invalid body (field named), or the provider refused the credentials' },
  502: { description: 'the provider could not be reached or answered an error' },
};

export const integrationRoutes: RouteModule = (api, { ctx }) => {
  for (const [name, cfg] of Object.entries(ctx.config.integrations.providers)) declareProvider(api, name, cfg);
};

function declareProvider(api: ApiRegistry, name: string, cfg: IntegrationProviderConfig): void {
  const path = `/v1/organizations/integrations/${name}`;
  const deprecated: Deprecation | undefined = cfg.deprecated
    ? { since: cfg.deprecatedSince, ...(cfg.sunset ? { sunset: cfg.sunset } : {}) }
    : undefined;
  const common = { method: 'put' as const, path, tags: ['integrations'], auth: 'bearer' as const, ...(deprecated ? { deprecated } : {}) };
  switch (cfg.kind) {
    case 'company-credentials':
      api.route({
        ...common,
        summary: `Connect a company at ${name} (company credentials)`,
        body: companyCredentialsSchema,
        responses: {
          200: {
            description: 'the provider and its network addresses',
            schema: z.object({
              provider: z.string(),
              integrationNetworkAddresses: z.array(z.object({ network: z.string(), address: z.string() })),
            }),
          },
          ...providerErrors,
        },
        handler: async ({ ctx, body, auth }) => ({ body: await putCompanyCredentials(ctx, auth.orgId, name, cfg, body) }),
      });
      return;
    case 'pfi-client-credentials':
      api.route({
        ...common,
        summary: `Connect the organization's PFI account at ${name} (client credentials)`,
        body: pfiClientCredentialsSchema,
        responses: { 200: { description: 'the organization PFI integration data', schema: pfiClientCredentialsSchema }, ...providerErrors },
        handler: async ({ ctx, body, auth }) => ({
          body: await putPfiClientCredentials(ctx, auth.orgId, name, cfg, body),
          headers: { 'Cache-Control': 'no-store' },
        }),
      });
      return;
    case 'partner-key':
      api.route({
        ...common,
        summary: `Create a partner key at ${name}`,
        body: partnerKeySchema,
        responses: {
          202: {
            description: 'the organization integration data',
            schema: z.object({ id: z.string(), provider: z.string(), kind: z.string(), createdAt: instant, updatedAt: instant }),
          },
          ...providerErrors,
        },
        handler: async ({ ctx, body, auth }) => ({ status: 202, body: await putPartnerKey(ctx, auth.orgId, name, cfg, body) }),
      });
      return;
  }
}

/**
 * GET /v1/organizations/network (the replacement) and the deprecated GET /v1/deposits/countries,
 * both from config.
 *
 * @module api/routes/network
 */
import { z } from 'zod';
import type { RouteModule } from '../route.js';

const networkSchema = z.object({
  countries: z.array(z.string()).describe('two-letter codes of the countries where deposits are available'),
  networks: z.array(z.object({ network: z.string(), assets: z.array(z.string()) })),
  assets: z.array(z.string()).describe('every asset available on at least one network, sorted'),
});

export const networkRoutes: RouteModule = (api, { ctx }) => {
  const cfg = ctx.config.network;
  const countries = [...cfg.depositCountries].sort();
  const networks = cfg.networks.map((n) => ({ network: n.network, assets: [...n.assets] }));
  const assets = [...new Set(cfg.networks.flatMap((n) => n.assets))].sort();

  api.route({
    method: 'get',
    path: '/v1/organizations/network',
    summary: 'Countries, networks and assets available to the organization',
    tags: ['network'],
    auth: 'bearer',
    responses: { 200: { description: 'the organization network', schema: networkSchema } },
    handler: () => ({ body: { countries, networks, assets } }),
  });

  api.route({
    method: 'get',
    path: '/v1/deposits/countries',
    summary: 'Countries available for deposits (deprecated; use GET /v1/organizations/network)',
    tags: ['network'],
    auth: 'bearer',
    deprecated: { since: cfg.countriesDeprecatedSince, sunset: cfg.countriesSunset, successor: '/v1/organizations/network' },
    responses: { 200: { description: 'country codes', schema: z.array(z.string()) } },
    handler: () => ({ body: countries }),
  });
};

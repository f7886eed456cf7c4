/**
 * Each organization's public signing keys as a JWKS, without credentials: public keys are public,
 * and JOSE libraries (jose's createRemoteJWKSet and its kin) fetch a key set from a URL with no
 * token. The organization id is in the path, so one URL per organization, fixed for its lifetime.
 *
 * @module api/routes/jwks
 */
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { organizationJwks } from '../../delivery/jwks.js';
import { idParams } from '../id-params.js';
import type { RouteModule } from '../route.js';

export const JWKS_PATH = '/v1/organizations/{id}/jwks.json';

/**
 * How long a receiver may keep the set. A rotation publishes its new key at once, and a receiver
 * that meets an unknown `kid` fetches again (jose does), so the cache never hides a new key for
 * long; the replaced key stays in the set for webhooks.rotationOverlapSeconds, longer than this.
 */
const MAX_AGE_SECONDS = 300;

const jwk = z.object({
  kty: z.enum(['RSA', 'OKP']),
  kid: z.string().describe('The key id: for RSA, the x-signature-key-id of the deliveries it signs'),
  use: z.literal('sig'),
  alg: z.enum(['RS256', 'EdDSA']).describe('RS256 verifies x-signature; EdDSA (Ed25519) verifies the v1a signatures of webhook-signature'),
  n: z.string().optional(),
  e: z.string().optional(),
  crv: z.literal('Ed25519').optional(),
  x: z.string().optional(),
});

export const jwksRoutes: RouteModule = (api) => {
  api.route({
    method: 'get',
    path: JWKS_PATH,
    summary: "The organization's public signing keys as a JSON Web Key Set (no token needed)",
    description:
      'RSA keys (alg RS256, kid = x-signature-key-id) and Ed25519 keys (alg EdDSA, for webhook-signature v1a): the current ' +
      'ones and those a rotation replaced less than webhooks.rotationOverlapSeconds ago. Cacheable for ' +
      `${MAX_AGE_SECONDS} s; fetch again when a delivery names a kid the cached set lacks.`,
    tags: ['webhooks'],
    auth: 'none',
    params: idParams,
    responses: {
      200: { description: 'the key set (empty before the organization has a key)', schema: z.object({ keys: z.array(jwk) }) },
      404: { description: 'unknown organization id' },
    },
    handler: async ({ ctx, params }) => {
      const jwks = await organizationJwks(ctx, params.id);
      if (!jwks) throw notFound(`organization ${params.id}`);
      return {
        body: jwks,
        headers: { 'cache-control': `public, max-age=${MAX_AGE_SECONDS}`, 'access-control-allow-origin': '*' },
      };
    },
  });
};

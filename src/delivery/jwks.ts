/**
 * An organization's public signing keys as a JSON Web Key Set (RFC 7517, members from RFC 7518 and
 * RFC 8037): its RSA keys for `x-signature` (`kid` is the `x-signature-key-id` they sign with) and
 * its Ed25519 keys for Standard Webhooks' `v1a`, each the current one and those a rotation retired
 * less than `webhooks.rotationOverlapSeconds` ago. Public by nature: what any JOSE library fetches.
 *
 * @module delivery/jwks
 */
import { createPublicKey } from 'node:crypto';
import type { AppContext } from '../context.js';
import { publishedEd25519Keys } from '../store/ed25519-keys.js';
import { getOrganization } from '../store/organizations.js';
import { listWebhookKeys } from '../store/webhook-keys.js';
import { retiredSince } from './signing-keys.js';

/** One key of the set: an RSA key (`n`, `e`) or an Ed25519 one (`crv`, `x`). */
export interface Jwk {
  kty: 'RSA' | 'OKP';
  kid: string;
  use: 'sig';
  alg: 'RS256' | 'EdDSA';
  n?: string;
  e?: string;
  crv?: 'Ed25519';
  x?: string;
}

export interface Jwks {
  keys: Jwk[];
}

/** The published keys of the organization, current ones first: RSA, then Ed25519; undefined for an unknown organization. */
export async function organizationJwks(ctx: AppContext, orgId: string): Promise<Jwks | undefined> {
  if (!(await getOrganization(ctx.db, orgId))) return undefined;
  const since = retiredSince(ctx);
  const rsa = (await listWebhookKeys(ctx.db, orgId))
    .filter((row) => row.retired_at === null || row.retired_at > since)
    .sort((a, b) => Number(a.retired_at !== null) - Number(b.retired_at !== null) || (a.id < b.id ? 1 : -1));
  const keys: Jwk[] = rsa.map((row) => {
    const { n, e } = createPublicKey(row.public_pem).export({ format: 'jwk' });
    return { kty: 'RSA', kid: row.id, use: 'sig', alg: 'RS256', n: n!, e: e! };
  });
  for (const row of await publishedEd25519Keys(ctx.db, orgId, since)) {
    keys.push({ kty: 'OKP', kid: row.id, use: 'sig', alg: 'EdDSA', crv: 'Ed25519', x: row.public_key });
  }
  return { keys };
}

/**
 * Company credentials: the provider links the company and answers the network addresses it holds.
 *
 * @module integrations/company-credentials
 */
import { z } from 'zod';
import { BorderdError } from '../domain/errors.js';
import { headerCredential, postToProvider } from './provider-call.js';

export const companyCredentialsSchema = z.strictObject({
  apiKey: headerCredential(500),
  apiSecret: headerCredential(500),
  // It becomes a path segment, and URL resolution takes "." and ".." (escaped or not) as dot segments:
  // "companies/../integration" would be POSTed to {baseUrl}integration.
  companyId: z
    .string()
    .min(1)
    .max(200)
    .refine((v) => v !== '.' && v !== '..', 'must not be "." or ".."'),
});
export type CompanyCredentials = z.output<typeof companyCredentialsSchema>;

const addressesSchema = z.object({
  integrationNetworkAddresses: z.array(z.object({ network: z.string().min(1).max(32), address: z.string().min(1).max(200) })).max(100),
});
export type IntegrationNetworkAddress = z.output<typeof addressesSchema>['integrationNetworkAddresses'][number];

export async function linkCompany(baseUrl: string, creds: CompanyCredentials, timeoutMs: number): Promise<IntegrationNetworkAddress[]> {
  const answer = await postToProvider({
    baseUrl,
    path: `companies/${encodeURIComponent(creds.companyId)}/integration`,
    timeoutMs,
    headers: { 'x-api-key': creds.apiKey, 'x-api-secret': creds.apiSecret },
    body: '{}',
  });
  const parsed = addressesSchema.safeParse(answer);
  if (!parsed.success) throw new BorderdError(502, 'provider_error', 'the provider answered without integrationNetworkAddresses');
  return parsed.data.integrationNetworkAddresses.map(({ network, address }) => ({ network, address }));
}

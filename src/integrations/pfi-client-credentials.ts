/**
 * PFI client credentials: checked by asking the PFI for a client-credentials token.
 *
 * @module integrations/pfi-client-credentials
 */
import { z } from 'zod';
import { postToProvider } from './provider-call.js';

export const pfiClientCredentialsSchema = z.strictObject({
  // The user-id of HTTP Basic ends at its first ":" (RFC 7617): one inside would move the rest into the password.
  clientId: z
    .string()
    .min(10)
    .max(64)
    .refine((v) => !v.includes(':'), 'must not contain ":" (it is sent as the HTTP Basic user-id)'),
  clientSecret: z.string().min(10).max(64),
});
export type PfiClientCredentials = z.output<typeof pfiClientCredentialsSchema>;

export async function verifyPfiClient(baseUrl: string, creds: PfiClientCredentials, timeoutMs: number): Promise<void> {
  await postToProvider({
    baseUrl,
    path: 'oauth/token',
    timeoutMs,
    headers: { authorization: `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}` },
    contentType: 'application/x-www-form-urlencoded',
    body: 'grant_type=client_credentials',
  });
}

import { z } from 'zod';
import { postToProvider } from './provider-call.js';

/** PFI client credentials: checked by asking the PFI for a client-credentials token. */
export const pfiClientCredentialsSchema = z.strictObject({
  clientId: z.string().min(10).max(64),
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

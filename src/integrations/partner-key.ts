/**
 * Partner key: the key and secret are registered at the provider, which accepts them for
 * processing.
 *
 * @module integrations/partner-key
 */
import { z } from 'zod';
import { postToProvider } from './provider-call.js';

export const partnerKeySchema = z.strictObject({
  apiKey: z.string().min(1).max(500),
  apiSecret: z.string().min(1).max(500),
});
export type PartnerKey = z.output<typeof partnerKeySchema>;

export async function registerPartnerKey(baseUrl: string, creds: PartnerKey, timeoutMs: number): Promise<void> {
  await postToProvider({
    baseUrl,
    path: 'partner-keys',
    timeoutMs,
    body: JSON.stringify({ apiKey: creds.apiKey, apiSecret: creds.apiSecret }),
  });
}

import { BlockList, isIP } from 'node:net';
import type { FieldError } from './errors.js';

/**
 * Which webhook targets borderd may call. Pure: it looks at the URL text and at addresses handed
 * to it; the dispatcher's connector resolves names and asks `isRefusedAddress` about the result.
 */
export interface WebhookUrlPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
  maxUrlLength: number;
}

// Loopback, private, link-local, carrier-grade NAT, "this network", multicast and reserved ranges.
const refused = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) refused.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) refused.addSubnet(net, bits, 'ipv6');

/** True when the address is loopback, private, link-local or otherwise not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return refused.check(mapped[1]!, 'ipv4');
    return refused.check(address, 'ipv6');
  }
  return true; // not an address at all: never connect to it
}

export function isRefusedAddress(address: string, policy: Pick<WebhookUrlPolicy, 'allowPrivateNetworks'>): boolean {
  return !policy.allowPrivateNetworks && isPrivateAddress(address);
}

const LOCAL_NAMES = /(^|\.)(localhost|localdomain|local|internal|home\.arpa)$/i;

/** Checks a URL given at registration; returns field errors for `path` (empty when acceptable). */
export function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy, path = 'body.url'): FieldError[] {
  const fail = (message: string): FieldError[] => [{ path, message }];
  if (raw.length > policy.maxUrlLength) return fail(`must be at most ${policy.maxUrlLength} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('must use https (or http where allowed)');
  if (url.protocol === 'http:' && !policy.allowHttp) return fail('must use https');
  if (url.username || url.password) return fail('must not carry credentials');
  if (url.hash) return fail('must not carry a fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return fail('must name a host');
  if (!policy.allowPrivateNetworks) {
    if (isIP(host) ? isPrivateAddress(host) : LOCAL_NAMES.test(host) || !host.includes('.')) {
      return fail('must not point at a private, loopback or link-local address');
    }
  }
  return [];
}

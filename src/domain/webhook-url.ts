/**
 * Which webhook targets borderd may call. Pure: it looks at the URL text and at addresses handed
 * to it; the dispatcher's connector resolves names and asks `isRefusedAddress` about the result.
 *
 * @module domain/webhook-url
 */
import { BlockList, isIP } from 'node:net';
import type { FieldError } from './errors.js';

export interface WebhookUrlPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
  maxUrlLength: number;
}

// Loopback, private, link-local, carrier-grade NAT, "this network", multicast, documentation and
// reserved ranges: whatever is not a public unicast address.
const refused = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  refused.addSubnet(net, bits, 'ipv4');
// IPv6 besides loopback, unique-local, link-local and multicast: the deprecated site-local range
// (fec0::/10, still routed inside some networks), discard-only (100::/64), Teredo (2001::/32, which
// tunnels to an IPv4 host through a relay) and documentation (2001:db8::/32).
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  refused.addSubnet(net, bits, 'ipv6');

/** The 16 bytes of an IPv6 address (any textual form, dotted IPv4 tail included); undefined when it is not one. */
export function ipv6Bytes(address: string): Uint8Array | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const groups = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  if (all.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => ((bytes[2 * i] = g >> 8), (bytes[2 * i + 1] = g & 0xff)));
  return bytes;
}

const prefixIs = (bytes: Uint8Array, prefix: readonly number[]) => prefix.every((b, i) => bytes[i] === b);
const ipv4At = (bytes: Uint8Array, at: number) => `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;

/**
 * The IPv4 address an IPv6 address reaches, for the forms that embed one: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96, SIIT), IPv4-compatible (::/96), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16, the IPv4 address in bytes 2-5). Such an address is only as
 * allowed as the IPv4 address inside it.
 */
export function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  if (!bytes) return undefined;
  const zeros10 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  if (prefixIs(bytes, [...zeros10, 0xff, 0xff])) return ipv4At(bytes, 12);
  if (prefixIs(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0])) return ipv4At(bytes, 12);
  if (prefixIs(bytes, [...zeros10, 0, 0])) return ipv4At(bytes, 12);
  if (prefixIs(bytes, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return ipv4At(bytes, 12);
  if (prefixIs(bytes, [0x20, 0x02])) return ipv4At(bytes, 2);
  return undefined;
}

/** True when the address is loopback, private, link-local or otherwise not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family === 6) {
    if (refused.check(address, 'ipv6')) return true;
    // The local-use NAT64 prefix (64:ff9b:1::/48) translates to whatever the operator's network chooses.
    if (prefixIs(ipv6Bytes(address)!, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) return true;
    const v4 = embeddedIpv4(address);
    return v4 !== undefined && refused.check(v4, 'ipv4');
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
  // The URL parser strips spaces and controls at either end and tabs and newlines anywhere, so the url
  // stored and shown would not be the one called: such a url is refused, not silently cleaned.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\u0000-\u0020\u007f]/.test(raw)) return fail('must not contain spaces or control characters (percent-encode them)');
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
  // A trailing dot only marks the name fully qualified: "localhost." resolves like "localhost".
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (!host) return fail('must name a host');
  if (!policy.allowPrivateNetworks) {
    if (isIP(host) ? isPrivateAddress(host) : LOCAL_NAMES.test(host) || !host.includes('.')) {
      return fail('must not point at a private, loopback or link-local address');
    }
  }
  return [];
}

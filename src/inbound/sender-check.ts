/**
 * Who may post card-network notifications. The spec leaves the sender's authentication open; the
 * card network's notification programmes offer two checks, both optional: the source IP within
 * published CIDR ranges, and mutual TLS, which behind a TLS terminator arrives as a header the
 * terminator sets after verifying the client certificate.
 *
 * @module inbound/sender-check
 */
import { BlockList, isIP } from 'node:net';
import { BorderdError, forbidden } from '../domain/errors.js';
import { tokensEqual } from '../security/admin-token.js';

export interface SenderPolicy {
  allowlist: string[];
  clientCertHeader?: { name: string; value: string } | undefined;
}

/** Parses "10.0.0.0/8", "2001:db8::/32" or a bare address; throws with the offending entry. */
export function buildAllowlist(cidrs: string[]): BlockList | undefined {
  if (cidrs.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of cidrs) {
    const [address = '', prefixText, ...rest] = entry.trim().split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (
      family === 0 ||
      rest.length > 0 ||
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > max ||
      (prefixText !== undefined && !/^\d+$/.test(prefixText))
    ) {
      throw new Error(`inbound.allowlist: "${entry}" is not an IPv4 or IPv6 CIDR range`);
    }
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** "::ffff:10.1.2.3" (how a dual-stack socket reports IPv4 peers) is checked as 10.1.2.3. */
export function normalizeClientIp(ip: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  const family = isIP(address);
  if (family === 0) return undefined;
  return { address, family: family === 4 ? 'ipv4' : 'ipv6' };
}

export function ipAllowed(list: BlockList | undefined, ip: string | undefined): boolean {
  if (!list) return true;
  const normalized = ip === undefined ? undefined : normalizeClientIp(ip);
  return normalized !== undefined && list.check(normalized.address, normalized.family);
}

/**
 * What the check reads of a request: the client address (through server.trustProxy), a header, and
 * whether the connection's own peer is a trusted proxy, the only peer whose client-certificate
 * header is believed (a client reaching the port directly could write that header itself).
 */
export interface SenderInput {
  ip: string | undefined;
  header: (name: string) => string | undefined;
  peerIsTrustedProxy: boolean;
}

/** A checker made once per route from config; throws a 403 problem for a refused sender. */
export function senderChecker(policy: SenderPolicy): (input: SenderInput) => void {
  const list = buildAllowlist(policy.allowlist);
  const cert = policy.clientCertHeader;
  return ({ ip, header, peerIsTrustedProxy }) => {
    if (!ipAllowed(list, ip)) throw forbidden('sender_not_allowed', 'this source address may not post card-network notifications');
    if (cert) {
      const presented = peerIsTrustedProxy ? header(cert.name) : undefined;
      if (presented === undefined || !tokensEqual(presented, cert.value)) {
        throw forbidden('client_certificate_required', 'a verified client certificate is required to post card-network notifications');
      }
    }
  };
}

/**
 * Who can reach the endpoint, and who may post there:
 * - `local`: the daemon listens on loopback only, so only this host's processes can post;
 * - `checked`: an allowlist or the client-certificate header decides;
 * - `open`: reachable from other hosts and anyone may post, because inbound.allowAnySender says so;
 * - `closed`: reachable from other hosts with no sender check: the endpoint answers 503 and stores
 *   nothing, since anyone who finds the port could otherwise fill the disk with `unmatched` rows.
 */
export type InboundExposure = 'local' | 'checked' | 'open' | 'closed';

const LOOPBACK_HOSTS = new Set(['localhost', '::1', '[::1]']);

function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function inboundExposure(config: {
  server: { host: string };
  inbound: { allowlist: string[]; clientCertHeader?: { name: string; value: string } | undefined; allowAnySender: boolean };
}): InboundExposure {
  if (config.inbound.allowlist.length > 0 || config.inbound.clientCertHeader) return 'checked';
  if (isLoopbackHost(config.server.host)) return 'local';
  return config.inbound.allowAnySender ? 'open' : 'closed';
}

/** The one start line about the endpoint's senders, or undefined when there is nothing to say. */
export function exposureNotice(exposure: InboundExposure): string | undefined {
  if (exposure === 'closed')
    return 'card-network endpoint closed (503): the daemon listens beyond loopback and no sender check is set; set inbound.allowlist or inbound.clientCertHeader, or inbound.allowAnySender: true to accept anyone';
  if (exposure === 'open')
    return 'card-network endpoint open to any sender (inbound.allowAnySender): only inbound.maxUnmatchedPerSender (notifications stored per sender, mapped ica or not) and retention bound what strangers store';
  return undefined;
}

/** The code of a closed endpoint's answer: an expected refusal, logged by count (logging/refusal-log.ts), not as a failure. */
export const SENDER_CHECK_REQUIRED = 'sender_check_required';

/** The answer of a closed endpoint (inboundExposure): 503, so a genuine sender tries again once it is configured. */
export const senderCheckRequired = (): BorderdError =>
  new BorderdError(
    503,
    SENDER_CHECK_REQUIRED,
    'this card-network endpoint accepts notifications once the operator sets a sender check (inbound.allowlist or inbound.clientCertHeader)',
    { headers: { 'Retry-After': '300' } },
  );

/**
 * How deliveries reach a webhook: a connection pool per webhook whose DNS lookup drops the
 * addresses the policy refuses, so the address checked is the address connected to.
 *
 * @module delivery/connector
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Pool } from 'undici';
import { isRefusedAddress } from '../domain/webhook-url.js';

/** Thrown (as the connection error) when a webhook host resolves to an address the policy refuses. */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
}

/**
 * A DNS lookup that checks every address it returns against the policy. net/tls connect to the
 * address this function hands back, so the address checked is the address used: a name that
 * resolves to a public address at registration and to 127.0.0.1 later cannot get through.
 */
export function checkedLookup(policy: { allowPrivateNetworks: boolean }): LookupFunction {
  return ((
    hostname: string,
    options: object,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const allowed = addresses.filter((a) => !isRefusedAddress(a.address, policy));
      if (allowed.length === 0) {
        return callback(new RefusedAddressError(`${hostname} resolves only to refused (private, loopback or link-local) addresses`), '', 0);
      }
      if ((options as { all?: boolean }).all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  }) as LookupFunction;
}

/** IP literals skip DNS entirely, so they are checked before connecting. */
export function literalAddressRefused(url: URL, policy: { allowPrivateNetworks: boolean }): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && isRefusedAddress(host, policy);
}

/**
 * The keep-alive connection pool of ONE webhook: `connections` sockets (perEndpointConcurrency) to
 * its origin, shared with no other webhook, so two webhooks on one host never wait for each other's
 * sockets and a request never queues behind another webhook's slow answer. Redirects are never
 * followed (undici default). The per-phase timeouts start when the request is on a socket.
 */
export function createWebhookPool(origin: string, opts: { allowPrivateNetworks: boolean; timeoutMs: number; connections: number }): Pool {
  return new Pool(origin, {
    connect: { lookup: checkedLookup(opts), timeout: opts.timeoutMs },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 4_000,
    connections: opts.connections,
  });
}

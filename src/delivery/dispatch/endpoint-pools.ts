/**
 * Each webhook's own connection pool (perEndpointConcurrency sockets to its origin, shared with no
 * other webhook), the parsed form of each webhook url, and the closing of pools left idle, so a
 * deleted or quiet webhook keeps no sockets.
 *
 * @module delivery/dispatch/endpoint-pools
 */
import type { Pool } from 'undici';
import { remember } from '../../domain/bounded-map.js';
import { createWebhookPool, literalAddressRefused } from '../connector.js';

/** A webhook's pool with nothing in flight for this long is closed. */
export const POOL_IDLE_MS = 30_000;
/** Webhook urls kept parsed: a url is parsed once, not on every send to it. */
const TARGET_CACHE = 1_000;

/** A webhook url as a send needs it, parsed once. */
export interface Target {
  origin: string;
  path: string;
  /** A literal address the configuration does not allow (private, loopback, link-local). */
  refused: boolean;
}

/** One webhook's pool and its sends in flight. */
export interface EndpointPool {
  origin: string;
  pool: Pool;
  inflight: number;
  /** When its last send in flight ended (performance.now()). */
  idleSince: number;
}

/** What the pools read of the configuration, when they need it. */
export interface PoolConfig {
  readonly delivery: { readonly timeoutMs: number; readonly perEndpointConcurrency: number };
  readonly webhooks: { readonly allowPrivateNetworks: boolean };
}

export class EndpointPools {
  readonly #config: PoolConfig;
  readonly #create: typeof createWebhookPool;
  readonly #pools = new Map<string, EndpointPool>();
  readonly #targets = new Map<string, Target>();

  /** @param create makes a webhook's pool (tests pass their own) */
  constructor(config: PoolConfig, create: typeof createWebhookPool = createWebhookPool) {
    this.#config = config;
    this.#create = create;
  }

  target(href: string): Target {
    let target = this.#targets.get(href);
    if (!target) {
      const url = new URL(href);
      const refused = literalAddressRefused(url, { allowPrivateNetworks: this.#config.webhooks.allowPrivateNetworks });
      target = { origin: url.origin, path: url.pathname + url.search, refused };
      remember(this.#targets, href, target, TARGET_CACHE);
    }
    return target;
  }

  /** The webhook's pool for `target`, with one more send in flight; `release` it when the send is over. */
  acquire(webhookId: string, target: Target): EndpointPool {
    let entry = this.#pools.get(webhookId);
    if (entry && entry.origin !== target.origin) {
      // The url moved to another origin (PATCH): the old sockets go once their requests are done.
      void entry.pool.close().catch(() => undefined);
      entry = undefined;
    }
    if (!entry) {
      const { timeoutMs, perEndpointConcurrency } = this.#config.delivery;
      entry = {
        origin: target.origin,
        pool: this.#create(target.origin, {
          allowPrivateNetworks: this.#config.webhooks.allowPrivateNetworks,
          timeoutMs,
          connections: perEndpointConcurrency,
        }),
        inflight: 0,
        idleSince: performance.now(),
      };
      this.#pools.set(webhookId, entry);
    }
    entry.inflight++;
    return entry;
  }

  release(entry: EndpointPool): void {
    entry.inflight--;
    if (entry.inflight === 0) entry.idleSince = performance.now();
  }

  /** Whether the webhook has a pool open. */
  has(webhookId: string): boolean {
    return this.#pools.has(webhookId);
  }

  /** Closes the pools with nothing in flight for POOL_IDLE_MS. */
  closeIdle(now = performance.now()): void {
    for (const [id, entry] of this.#pools) {
      if (entry.inflight === 0 && now - entry.idleSince > POOL_IDLE_MS) {
        this.#pools.delete(id);
        void entry.pool.close().catch(() => undefined);
      }
    }
  }

  /** Closes every pool (a stop), once their requests are done. */
  async closeAll(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.allSettled(pools.map((p) => p.pool.close()));
  }
}

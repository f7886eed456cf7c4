/**
 * Budgets per key: the token bucket that slows a client that keeps failing (or an organization
 * that keeps asking for costly work), and the key an address is counted under.
 *
 * @module domain/failure-budget
 */
import { remember } from './bounded-map.js';

/**
 * Tries allowed per key (a client address, an organization), as a token bucket: `capacity` tries
 * that refill continuously at `capacity` per `windowMs` (a minute unless given). A key whose bucket
 * holds fewer than the tries it asks for must wait until they have refilled. Only what is spent
 * counts (for a token endpoint: failures), so a client that only ever succeeds is never slowed. At
 * most `maxKeys` keys are tracked (least recently spent go first): a sender rotating keys could push
 * its own entries out, but no more memory than that. Pure: the caller passes the time.
 */
export class FailureBudget {
  readonly #buckets = new Map<string, { tries: number; atMs: number }>();

  constructor(
    private readonly capacity: number,
    private readonly maxKeys = 10_000,
    private readonly windowMs = 60_000,
  ) {}

  #tries(key: string, nowMs: number): number {
    const b = this.#buckets.get(key);
    if (!b) return this.capacity;
    // A clock that moved back refills nothing (and takes nothing away).
    // Multiplied before divided (and waitMs likewise), so whole refills come out whole, not a float's last bit short.
    return Math.min(this.capacity, b.tries + (Math.max(0, nowMs - b.atMs) * this.capacity) / this.windowMs);
  }

  /** Milliseconds until `key` may spend `n` tries: 0 when it may now (`n` at most `capacity`). */
  waitMs(key: string, nowMs: number, n = 1): number {
    const tries = this.#tries(key, nowMs);
    return tries >= n ? 0 : Math.ceil(((n - tries) * this.windowMs) / this.capacity);
  }

  /** `n` tries of `key` spent: that many less in its bucket. */
  spend(key: string, nowMs: number, n = 1): void {
    remember(this.#buckets, key, { tries: Math.max(0, this.#tries(key, nowMs) - n), atMs: nowMs }, this.maxKeys);
  }

  /** Gives back `n` tries spent in advance that turned out not to count (never above `capacity`). */
  refund(key: string, nowMs: number, n = 1): void {
    if (!this.#buckets.has(key)) return;
    const tries = Math.min(this.capacity, this.#tries(key, nowMs) + n);
    if (tries >= this.capacity)
      this.#buckets.delete(key); // full again: nothing to remember
    else remember(this.#buckets, key, { tries, atMs: nowMs }, this.maxKeys);
  }

  /** Keys tracked now (for tests). */
  get size(): number {
    return this.#buckets.size;
  }
}

/**
 * The key an address is counted under: an IPv4 address (also when written IPv4-mapped, as a
 * dual-stack socket reports it) as it is, an IPv6 address by its /64, since one host commonly has a
 * whole /64 to pick from. Anything else (no address known) is counted as it is.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head, tail] = address.toLowerCase().split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  if (groups.length !== 8) return address;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Failure budgets per client address: the token bucket that slows a client that keeps failing, and
 * the key an address is counted under.
 *
 * @module domain/failure-budget
 */
import { remember } from './bounded-map.js';

/**
 * Failures allowed per key (a client address), as a token bucket: `perMinute` tries that refill
 * continuously at `perMinute` a minute. A key whose bucket is empty must wait until one try has
 * refilled. Successes cost nothing, so a client that only ever succeeds is never slowed. At most
 * `maxKeys` keys are tracked (least recently failed go first): a sender rotating addresses could push
 * its own entries out, but no more memory than that. Pure: the caller passes the time.
 */
export class FailureBudget {
  readonly #buckets = new Map<string, { tries: number; atMs: number }>();
  readonly #perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys = 10_000,
  ) {
    this.#perMs = perMinute / 60_000;
  }

  #tries(key: string, nowMs: number): number {
    const b = this.#buckets.get(key);
    if (!b) return this.perMinute;
    // A clock that moved back refills nothing (and takes nothing away).
    return Math.min(this.perMinute, b.tries + Math.max(0, nowMs - b.atMs) * this.#perMs);
  }

  /** Milliseconds until `key` may try again: 0 when it may now. */
  waitMs(key: string, nowMs: number): number {
    const tries = this.#tries(key, nowMs);
    return tries >= 1 ? 0 : Math.ceil((1 - tries) / this.#perMs);
  }

  /** A failed try of `key`: one less in its bucket. */
  spend(key: string, nowMs: number): void {
    remember(this.#buckets, key, { tries: Math.max(0, this.#tries(key, nowMs) - 1), atMs: nowMs }, this.maxKeys);
  }

  /** Gives back a try spent in advance that turned out not to be a failure (never above perMinute). */
  refund(key: string, nowMs: number): void {
    if (!this.#buckets.has(key)) return;
    const tries = Math.min(this.perMinute, this.#tries(key, nowMs) + 1);
    if (tries >= this.perMinute)
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

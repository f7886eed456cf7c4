/**
 * Prefixed, sortable ids (`evt_01j…`): a 48-bit millisecond time in 10 Crockford base32 characters,
 * then 80 random bits in 16 more. Ids made later in the same process sort after earlier ones, even
 * within one millisecond, so `startingAfter` can page by id and events sort by creation.
 *
 * @module domain/ids
 */
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'org'
  | 'cli'
  | 'key'
  | 'idn'
  | 'acc'
  | 'txn'
  | 'evt'
  | 'whk'
  | 'dlv'
  | 'att'
  | 'wsk'
  | 'wss'
  | 'rfp'
  | 'int'
  | 'inb'
  | 'cnk'
  | 'imp'
  | 'cmp'
  | 'vac'
  | 'req'
  | 'ast'
  | 'fia'
  | 'wek';

let lastMs = -1;
let lastRandom: Uint8Array = new Uint8Array(10);

/**
 * Random bytes for ids, drawn from a pool refilled 256 ids at a time: one call into the CSPRNG per
 * fill instead of one per id, since a request id is made for every request. Each id gets its own
 * copy of its bytes.
 */
const ID_RANDOM_BYTES = 10;
const randomPool = new Uint8Array(ID_RANDOM_BYTES * 256);
let randomOffset = randomPool.length;

function freshRandom(): Uint8Array {
  if (randomOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  return randomPool.slice(randomOffset, (randomOffset += ID_RANDOM_BYTES));
}

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 characters of 5 bits each.
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = Uint8Array.from(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] !== 255) {
      next[i] = (next[i] ?? 0) + 1;
      return next;
    }
    next[i] = 0;
  }
  return next;
}

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  let random: Uint8Array;
  if (nowMs <= lastMs) {
    random = increment(lastRandom);
    nowMs = lastMs;
  } else {
    random = freshRandom();
    lastMs = nowMs;
  }
  lastRandom = random;
  return `${prefix}_${encodeTime(nowMs)}${encodeRandom(random)}`;
}

/**
 * Makes every id this process creates from now on sort after `id` (one made by another process, say
 * the newest committed event): its time and random part become the floor `newId` counts up from.
 * Written ids of other processes may sort after ours when made in the same millisecond (random
 * parts) or by a clock a little ahead; this puts ours after them.
 */
export function sortAfter(id: string): void {
  const body = id.slice(id.indexOf('_') + 1);
  const ms = timeOfId(id);
  if (ms === undefined) return;
  const bytes = new Uint8Array(ID_RANDOM_BYTES);
  let acc = 0;
  let bits = 0;
  let i = 0;
  for (const c of body.slice(10)) {
    acc = (acc << 5) | ALPHABET.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[i++] = (acc >> bits) & 255;
      acc &= (1 << bits) - 1;
    }
  }
  if (ms > lastMs || (ms === lastMs && compareBytes(bytes, lastRandom) > 0)) {
    lastMs = ms;
    lastRandom = stepAbove(bytes);
  }
}

/**
 * `bytes` plus a random step of 1 to 2^40: every process that adopts the same floor (two nodes
 * reading the same newest event) counts up from its own place above it, not from the floor itself,
 * where their next ids would be the same.
 */
function stepAbove(bytes: Uint8Array): Uint8Array {
  const step = freshRandom().subarray(0, 5);
  const out = Uint8Array.from(bytes);
  let carry = 1; // the step is at least 1, so the floor itself is never made again
  for (let i = out.length - 1; i >= 0; i--) {
    const j = i - (out.length - step.length);
    const sum = out[i]! + (j >= 0 ? step[j]! : 0) + carry;
    out[i] = sum & 255;
    carry = sum >> 8;
  }
  return out;
}

/** The millisecond time an id was made at (its first 10 characters), or undefined for a string that is not an id. */
export function timeOfId(id: string): number | undefined {
  const body = id.slice(id.indexOf('_') + 1);
  if (body.length !== 26) return undefined;
  let ms = 0;
  for (const c of body.slice(0, 10)) {
    const digit = ALPHABET.indexOf(c);
    if (digit < 0) return undefined;
    ms = ms * 32 + digit;
  }
  return ms;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/**
 * The smallest id of `prefix` made at or after `ms`: every id made from then on sorts after it, so it
 * serves as an exclusive `after` cursor meaning "from this time" (the event stream's `since`).
 */
export function idLowerBound(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(Math.max(0, Math.floor(ms)))}${'0'.repeat(16)}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && id.length === prefix.length + 27;
}

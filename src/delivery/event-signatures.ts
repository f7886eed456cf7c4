/**
 * Event signatures for the whole process: each (event, key) is signed once, whether the dispatcher
 * sends the event to its webhooks or the event stream sends it to a client, and the signatures made
 * are stored in event_signatures for other processes and restarts.
 *
 * @module delivery/event-signatures
 */
import type { AppContext } from '../context.js';
import { remember } from '../domain/bounded-map.js';
import { storedSignatures, storeSignature } from '../store/event-signatures.js';
import { Signer, type SigningKey } from './signing-keys.js';

/**
 * Signatures kept in memory: enough for the dispatcher's fan-out, which claims the same event for
 * every webhook within a few passes, and for reconnecting streams, which re-read recent events.
 * Under 1 kB an entry.
 */
const MEMORY_SIZE = 10_000;
/**
 * Signatures made and not stored yet, at most. Storing saves signing again (after a restart, in
 * another process, once pushed out of memory); a send or a stream never needs it, so past this
 * bound a new signature is not listed. The attempts view does need the signature of every recorded
 * attempt, so each attempt stores its own with its record (withAttemptSignatures), listed or not.
 * They pile up only while another process holds the write lock (a CLI import): otherwise the next
 * dispatcher flush or stream batch stores them.
 */
const UNSTORED_SIZE = 10_000;
/**
 * Signatures `storeNow` writes per transaction, at most, so that one transaction holds the main
 * thread only briefly. The rest wait for the next writer; a backlog builds up only behind a held
 * lock.
 */
const STORE_SLICE = 1_000;

/** A signature made in this process and not yet in event_signatures. */
export interface MadeSignature {
  eventId: string;
  keyId: string;
  signature: string;
}

export interface EventSignaturesOptions {
  /** Signatures kept in memory (10,000); tests make it small. */
  memorySize?: number;
  /** Signatures made and waiting to be stored, at most (10,000); tests make it small. */
  unstoredSize?: number;
}

/**
 * The signature of (event, key), for every part of the process that sends events: the dispatcher's
 * webhooks and the event stream. One per process (startDaemon makes it and hands it to the
 * dispatcher and the API): one Signer, so each private key is unsealed once, and one cache, so an
 * event the stream signed is not signed again for its webhooks, and the other way round.
 *
 * A signature is taken from memory (a promise while it is being made), else from event_signatures
 * (read in batches by `preload`), else made on libuv's thread pool. A made one is remembered, and
 * listed until a writer stores it: the dispatcher with its next batch of results (in that
 * transaction), a stream batch right after its signing (`signBatch`). A signing that failed is
 * neither remembered nor listed, so the next caller tries again.
 */
export class EventSignatures {
  readonly signer: Signer;
  /** `${eventId} ${keyId}` → the signature, or the promise of it while it is being made. Least recently used out. */
  readonly #memory = new Map<string, Promise<string>>();
  #unstored: MadeSignature[] = [];
  /** The last bulk signing queued (signBatch): the next one starts when it is over. */
  #turn: Promise<unknown> = Promise.resolve();
  readonly #memorySize: number;
  readonly #unstoredSize: number;

  constructor(
    private readonly ctx: AppContext,
    opts: EventSignaturesOptions = {},
  ) {
    this.signer = new Signer(ctx);
    this.#memorySize = opts.memorySize ?? MEMORY_SIZE;
    this.#unstoredSize = opts.unstoredSize ?? UNSTORED_SIZE;
  }

  /**
   * Reads the stored signatures of `keyId` for those of `eventIds` not in memory, in one query, and
   * keeps them in memory. Returns what it read, for a caller that must not depend on the cache
   * still holding them.
   */
  async preload(keyId: string, eventIds: Iterable<string>): Promise<Map<string, string>> {
    const need = [...new Set(eventIds)].filter((id) => !this.#memory.has(entryOf(id, keyId)));
    const stored = await storedSignatures(this.ctx.db, keyId, need);
    for (const [eventId, signature] of stored) this.keep(eventId, keyId, signature);
    return stored;
  }

  /** Keeps in memory a stored signature read with something else (the dispatcher's read of its events' bodies). */
  keep(eventId: string, keyId: string, signature: string): void {
    remember(this.#memory, entryOf(eventId, keyId), Promise.resolve(signature), this.#memorySize);
  }

  /** The signature in memory (or being made), if any. */
  known(eventId: string, keyId: string): Promise<string> | undefined {
    const entry = entryOf(eventId, keyId);
    const hit = this.#memory.get(entry);
    if (hit) remember(this.#memory, entry, hit, this.#memorySize);
    return hit;
  }

  /**
   * The signature of `body` (event `eventId`) with `key`: the one in memory, else made now on the
   * thread pool; `made` says it was made by this call. Read stored ones first with `preload`.
   */
  signatureOf(eventId: string, key: SigningKey, body: string): { signature: Promise<string>; made: boolean } {
    const hit = this.known(eventId, key.keyId);
    if (hit) return { signature: hit, made: false };
    const entry = entryOf(eventId, key.keyId);
    const made = this.signer.signAsync(key, body).then((signature) => {
      if (this.#unstored.length < this.#unstoredSize) this.#unstored.push({ eventId, keyId: key.keyId, signature });
      return signature;
    });
    // A failure is not kept: the next caller tries again. Only this promise is removed, not one made since.
    made.catch(() => this.#memory.get(entry) === made && this.#memory.delete(entry));
    remember(this.#memory, entry, made, this.#memorySize);
    return { signature: made, made: true };
  }

  /**
   * The signatures of `rows` (all of one organization) with its current key, for a caller that
   * signs in bulk: the event stream's catch-up. Those not known are made in a turn, one batch at a
   * time across the process, and stored right after. The turn is here, with the signing, not in the
   * stream: it rations the thread pool that the dispatcher's signatures use too (the deliveries'
   * signatures go between batches instead of behind a burst of catch-ups), so any bulk signer must
   * take it. Signed inline on the main thread, a stream replaying thousands of events would hold
   * the daemon for seconds.
   */
  async signBatch(orgId: string, rows: readonly { id: string; body: string }[]): Promise<{ keyId: string; signatures: string[] }> {
    const key = await this.signer.currentKey(orgId);
    const stored = await this.preload(
      key.keyId,
      rows.map((row) => row.id),
    );
    const known = rows.map((row) => this.known(row.id, key.keyId) ?? fromStore(stored.get(row.id)));
    if (!known.includes(undefined)) return { keyId: key.keyId, signatures: await Promise.all(known as Promise<string>[]) };
    // Within the turn, a row another stream or the dispatcher has signed meanwhile is found in memory.
    const made = this.#turn.then(() => Promise.all(rows.map((row, i) => known[i] ?? this.signatureOf(row.id, key, row.body).signature)));
    this.#turn = made.catch(() => undefined);
    const signatures = await made;
    await this.storeNow();
    return { keyId: key.keyId, signatures };
  }

  /** How many made signatures wait to be stored. */
  get unstored(): number {
    return this.#unstored.length;
  }

  /** The made signatures not stored yet (the oldest `max` of them), for a writer to store; give them back if the write did not happen. */
  takeUnstored(max = Infinity): MadeSignature[] {
    if (this.#unstored.length <= max) {
      const taken = this.#unstored;
      this.#unstored = [];
      return taken;
    }
    return this.#unstored.splice(0, max);
  }

  /** Signatures taken whose write did not happen (the write lock was held): kept for the next writer, within the bound. */
  giveBack(taken: readonly MadeSignature[]): void {
    if (taken.length === 0) return;
    this.#unstored = taken.concat(this.#unstored);
    if (this.#unstored.length > this.#unstoredSize) this.#unstored.length = this.#unstoredSize;
  }

  /**
   * Stores made signatures (up to STORE_SLICE) in a transaction of its own, now, if the write lock
   * is free: as bookkeeping (no fsync; one lost to a power cut is made again when needed) and never
   * in SQLite's busy wait, which would hold the daemon's main thread. With the lock held elsewhere
   * they wait for the next writer. Never throws: storing must not fail a stream or a delivery.
   */
  async storeNow(): Promise<void> {
    const db = this.ctx.db;
    if (this.#unstored.length === 0 || !db.open) return;
    const taken = this.takeUnstored(STORE_SLICE);
    try {
      const wrote = await db.tryTransaction(
        async (tx) => {
          for (const s of taken) await storeSignature(tx, s.eventId, s.keyId, s.signature);
        },
        { durability: 'bookkeeping' },
      );
      if (!wrote.ok) this.giveBack(taken);
    } catch (err) {
      this.ctx.log.warn({ err, signatures: taken.length }, 'signatures not stored; they are made again when needed');
    }
  }
}

/** A recorded attempt, as far as its signature goes: its event, the key it was signed with, the x-signature it carried. */
export interface SignedAttempt {
  job: { readonly eventId: string; readonly keyId: string | null };
  result: { readonly signature?: string | undefined };
}

/**
 * `taken` and the signature of every attempt of `attempts` that carried one not among them: what a
 * batch of results stores (ON CONFLICT DO NOTHING) in its own transaction, so every recorded
 * attempt's x-signature is in event_signatures, where the attempts view derives it from, whatever
 * UNSTORED_SIZE let through.
 */
export function withAttemptSignatures(taken: readonly MadeSignature[], attempts: readonly SignedAttempt[]): MadeSignature[] {
  const all = taken.slice();
  const listed = new Set<string>();
  for (const s of taken) listed.add(s.signature);
  for (const { job, result } of attempts) {
    const signature = result.signature;
    if (signature === undefined || job.keyId === null || listed.has(signature)) continue;
    listed.add(signature);
    all.push({ eventId: job.eventId, keyId: job.keyId, signature });
  }
  return all;
}

const entryOf = (eventId: string, keyId: string) => `${eventId} ${keyId}`;

const fromStore = (signature: string | undefined) => (signature === undefined ? undefined : Promise.resolve(signature));

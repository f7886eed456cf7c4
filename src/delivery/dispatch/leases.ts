/**
 * This process's leases on the rows it claimed: how long a lease is, which rows it holds (a pass
 * never claims those again), their renewal every third of a lease, the check just before a send
 * that a row is still ours and still to go (from what its claim read while that is fresh, else from
 * the database), and giving leases back (one row that is not sent, or every row at a stop).
 *
 * @module delivery/dispatch/leases
 */
import type { AppContext } from '../../context.js';
import type { TransactionOptions } from '../../db/database.js';
import type { Signal } from '../../signals.js';
import { releaseLease, releaseLeases, releaseLeasesOf, renewLeases, sendTarget } from '../../store/delivery-claims.js';
import { CLAIM_ROUNDS } from './claim-shares.js';

/** Where a row still to go is sent: its webhook's url now, its due time, and whether its key was retired since it was signed. */
export type SendTarget = NonNullable<Awaited<ReturnType<typeof sendTarget>>>;

/**
 * What the check before a send found: the row's target; `gone`, it is not to be sent (its lease is
 * given back if it can be); `fresh`, what its claim read still holds and the row goes as claimed,
 * unread; or `unread`, the check itself failed and the row goes as claimed.
 */
export type BeforeSend = SendTarget | 'gone' | 'fresh' | 'unread';

/**
 * How long after its claim a row goes out on what the claim read (its webhook enabled at that url,
 * its row ours and due, its key current) without reading it again. A change signalled in this
 * process ends that at once: webhookChanged, from this process's services or another node's
 * notification on PostgreSQL, or a result of this dispatcher that disables a webhook. A change
 * nothing signals (the CLI on SQLite, a notification lost with its connection, another node's
 * result that disables a webhook) is seen by rows claimed after it, and by rows claimed before it
 * once they are this old. A row of a quick endpoint waits a few milliseconds for its slot, so a
 * steady drain reads nothing per delivery; one that waited longer is read.
 */
export const CLAIM_FRESH_MS = 1_000;

/** Whether what was read at `atMs` is still fresh at `now`: at most CLAIM_FRESH_MS old, by a clock that has not gone back. */
export function readIsFresh(atMs: number, now: number): boolean {
  const age = now - atMs;
  return age >= 0 && age <= CLAIM_FRESH_MS;
}

/** When a read began, and how many changes had been signalled by then. */
export interface ReadMark {
  /** When the read began (clock ms). */
  atMs: number;
  /** How many changes this process had signalled when it began. */
  changes: number;
}

/**
 * The one count of the changes of webhooks and keys signalled in this process (webhookChanged, and
 * a result of this dispatcher that disables a webhook), which every read a node keeps is checked
 * against: the claim's read of its rows (Leases) and the keys, secrets and opt-ins a pass keeps
 * (signing.ts). A read is fresh while readIsFresh holds and no change came since it began.
 */
export class SignalledChanges {
  #count = 0;
  readonly #unlisten: () => void;

  constructor(webhookChanged: Signal) {
    this.#unlisten = webhookChanged.listen(() => this.changed());
  }

  /** A change this process makes without the signal: a result of its own that disables a webhook. */
  changed(): void {
    this.#count++;
  }

  /** Where a read beginning at `atMs` stands; call it before the read. */
  mark(atMs: number): ReadMark {
    return { atMs, changes: this.#count };
  }

  /** Whether no change was signalled since `read` began. */
  unchangedSince(read: ReadMark): boolean {
    return read.changes === this.#count;
  }

  /** Whether what was read from `read` may still be used at `now`: no change since, and readIsFresh. */
  isFresh(read: ReadMark, now: number): boolean {
    return this.unchangedSince(read) && readIsFresh(read.atMs, now);
  }

  /** Stops listening (a stopped dispatcher). */
  close(): void {
    this.#unlisten();
  }
}

/** What a claim read and when: stamped on each of its jobs. */
export interface ClaimRead extends ReadMark {
  /** The lease the claim set. */
  leaseUntil: number;
}

/** A claimed row as the check before a send reads it: its row and its claim, which a job (job.ts) extends. */
export interface LeasedRow {
  id: string;
  eventId: string;
  webhook: { readonly id: string };
  step: number;
  /** The key its signature is made with (a retired one is replaced before the send, signing.ts resign), or null when it could not be signed. */
  keyId: string | null;
  /** What its claim read and when; absent: not known, so the row is read again before it is sent. */
  claim?: ClaimRead;
}

/** Claims and leases are bookkeeping: one lost to a power cut only means a row is sent again. */
const BOOKKEEPING: TransactionOptions = { durability: 'bookkeeping' };

export class Leases {
  readonly #ctx: AppContext;
  readonly #owner: string;
  /** Delivery ids claimed and not yet recorded (queued, sending, or result waiting to be written), per webhook. */
  readonly #held = new Map<string, Set<string>>();
  /** When the leases of the rows held were last extended (clock ms). */
  #renewedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  /**
   * A change signalled after a claim's pass began makes its rows read again before they are sent:
   * the process's count, shared with what else keeps reads, and closed by whoever made it.
   */
  readonly changes: SignalledChanges;

  constructor(ctx: AppContext, owner: string, changes: SignalledChanges) {
    this.#ctx = ctx;
    this.#owner = owner;
    this.changes = changes;
  }

  /** What a pass beginning now will have read, for its jobs; call it before the pass reads anything. */
  claimRead(atMs: number, leaseUntil: number): ClaimRead {
    return { ...this.changes.mark(atMs), leaseUntil };
  }

  /**
   * How long a claim is leased: a claimed row waits for a send slot (its webhook's sends ahead of
   * it, the process's slots taken in turn), then makes its own send, then its result is written.
   * A lease shorter than the wait plus the send could let another process send the same attempt:
   * never allowed. A claimed row waits at most CLAIM_ROUNDS - 1 rounds of sends, then makes its own;
   * one more round and 5 s are the margin. A node with a small part of a quick endpoint's slots
   * claims up to twice as deep (webhookClaimCapacity), rounds of sends quicker than slowAfterMs. A
   * row that waits longer (many webhooks taking the slots in turn, another organization's share, an
   * endpoint turned slow) keeps its lease by renewal.
   */
  get ms(): number {
    const { leaseMs, timeoutMs } = this.#ctx.config.delivery;
    return Math.max(leaseMs, (CLAIM_ROUNDS + 1) * timeoutMs + 5_000);
  }

  /** Rows claimed for this webhook are held until their job is over. */
  hold(webhookId: string, rows: readonly { id: string }[]): void {
    let held = this.#held.get(webhookId);
    if (!held) this.#held.set(webhookId, (held = new Set()));
    for (const row of rows) held.add(row.id);
  }

  /** The webhook's rows held: what its next claim leaves out. */
  heldIds(webhookId: string): string[] {
    const held = this.#held.get(webhookId);
    return held ? [...held] : [];
  }

  /** A job is over (recorded, or dropped at a stop): its row may be claimed again. */
  letGo(webhookId: string, id: string): void {
    const held = this.#held.get(webhookId);
    if (!held) return;
    held.delete(id);
    if (held.size === 0) this.#held.delete(webhookId);
  }

  /** How many rows are held, across webhooks. */
  get holding(): number {
    let n = 0;
    for (const held of this.#held.values()) n += held.size;
    return n;
  }

  /** Renews on a timer of its own, every third of a lease, whatever delivery.pollIntervalMs is. */
  startRenewing(): void {
    this.#timer = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.ms / 3)));
    this.#timer.unref();
  }

  stopRenewing(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /**
   * At most every third of a lease, the leases of every row held are extended by a whole lease, in
   * one statement. A row can wait for a send slot longer than any lease sized in advance: behind
   * many webhooks taking the process's slots in turn, or behind another organization's share.
   * Without this its lease could end while it waits, and another process on the same database would
   * send the same attempt at the same time. A process that dies stops renewing, and its rows are
   * taken over once their leases end.
   */
  async renew(): Promise<void> {
    const now = this.#ctx.clock.now();
    const leaseMs = this.ms;
    if (this.#held.size === 0 || now - this.#renewedAt < leaseMs / 3) return;
    const ids = [...this.#held.values()].flatMap((held) => [...held]);
    try {
      // Not while another process holds the write lock: tried again at the next tick.
      const renewed = await this.#ctx.db.tryTransaction((tx) => renewLeases(tx, this.#owner, ids, now + leaseMs), BOOKKEEPING);
      if (renewed.ok) this.#renewedAt = now;
    } catch (err) {
      // The database was busy: tried again at the next tick. A row whose lease runs short is not sent (beforeSend).
      this.#ctx.log.warn({ err, rows: ids.length }, 'leases not renewed; trying again');
    }
  }

  /**
   * Checked just before a claimed row is sent: it may have waited rounds of sends for its slot, and
   * meanwhile its webhook may have been disabled (an operator, a 410, another row's last failure),
   * deleted, replayed, or moved to another url, or its organization's key rotated. A row that is no
   * longer due under our lease is not sent and its lease is given back (a replay then sends it at
   * once). `ending`: a result of this webhook that disables it is not recorded yet, so the database
   * still says enabled; its rows are not sent either. A row whose claim read is fresh (isFresh) goes
   * out on it; any other is read again.
   */
  async beforeSend(job: LeasedRow, ending: boolean): Promise<BeforeSend> {
    const db = this.#ctx.db;
    let target: Awaited<ReturnType<typeof sendTarget>>;
    const now = this.#ctx.clock.now();
    // The lease must outlast this send by a margin; renew() keeps it so.
    const leaseAtLeast = now + this.#ctx.config.delivery.timeoutMs + 1_000;
    if (!ending && this.isFresh(job, now, leaseAtLeast)) return 'fresh';
    const read = () => sendTarget(db, job.id, this.#owner, job.step, job.keyId, leaseAtLeast);
    try {
      target = ending ? undefined : await read();
    } catch (err) {
      // The check is a safeguard: a read that fails does not stop the send, which goes as claimed.
      this.#ctx.log.error({ err, deliveryId: job.id }, 'delivery target check failed');
      return 'unread';
    }
    if (target === undefined && !ending) {
      // Its lease ran short (a jump of the wall clock, or a renewal that failed) but it may still be
      // ours: renewed now if no other process took it, then read again. Never in a busy wait: with the
      // write lock held elsewhere it is not sent, and its lease ends on its own.
      try {
        const renewed = await db.tryTransaction((tx) => renewLeases(tx, this.#owner, [job.id], now + this.ms), BOOKKEEPING);
        if (renewed.ok && renewed.value > 0) target = await read();
      } catch (err) {
        this.#ctx.log.warn({ err, deliveryId: job.id }, 'lease not renewed before a send; the row is given back');
      }
    }
    if (target === undefined) {
      try {
        // Given back so a replay or the next pass sends it at once; with the write lock held
        // elsewhere (no busy wait here), its lease ends on its own instead.
        await db.tryTransaction((tx) => releaseLease(tx, job.id, this.#owner), BOOKKEEPING);
      } catch (err) {
        // Not sent either way; the lease then ends on its own. Not an attempt, so not the caller's catch.
        this.#ctx.log.warn({ err, deliveryId: job.id }, 'lease of a row not sent was not given back; it ends on its own');
      }
      this.#ctx.log.info(
        { deliveryId: job.id, eventId: job.eventId, webhookId: job.webhook.id },
        'delivery not sent: its webhook or row changed while it waited',
      );
      return 'gone';
    }
    return target;
  }

  /**
   * Whether `job` may go out on what its claim read: claimed at most CLAIM_FRESH_MS ago by this
   * process's clock (a clock that went back says nothing, so it is read), with no change signalled
   * since its pass began, under the lease that claim set, which must still reach `leaseAtLeast`.
   * That lease is ours: only this process gives it back or shortens it, and another takes it only
   * once it has ended, or once the node registry finds this process silent for nodes.deadAfterMs,
   * far longer than the window. A lease that may have ended (a jump of the clock) is read.
   */
  isFresh(job: LeasedRow, now: number, leaseAtLeast: number): boolean {
    const claim = job.claim;
    if (!claim || claim.leaseUntil < leaseAtLeast) return false;
    return this.changes.isFresh(claim, now);
  }

  /**
   * Leases of rows this process will not send after all, given back without counting an attempt.
   * With the write lock held elsewhere they end on their own instead.
   */
  async giveBack(ids: readonly string[]): Promise<void> {
    try {
      await this.#ctx.db.tryTransaction((tx) => releaseLeasesOf(tx, this.#owner, ids), BOOKKEEPING);
    } catch (err) {
      this.#ctx.log.warn({ err, rows: ids.length }, 'leases of rows not sent were not given back; they end on their own');
    }
  }

  /** At a stop: every lease this process holds is given back without counting an attempt. */
  async releaseAll(): Promise<void> {
    await releaseLeases(this.#ctx.db, this.#owner);
  }
}

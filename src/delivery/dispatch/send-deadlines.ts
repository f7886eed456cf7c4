/**
 * The deadlines of a sender's sends in flight, on one timer. The sends have the same timeout, so
 * they expire in the order they started: they wait in a list in the order they fall due (a new one
 * goes at the end, found from the end if the timeout was changed meanwhile), and one timer set for
 * the first serves them all, instead of a timer and a closure made and cleared per send. A send
 * that ends leaves the list at once (the list is linked through the entries); the timer is not
 * moved for it, and finds the next one due when it fires (the last one to leave clears it).
 *
 * A deadline that fires well past its time (the event loop was held: a long garbage collection, a
 * write that waited for a lock) gives its send LATE_TIMER_MS more, once: the answer may have
 * arrived meanwhile, unread, and timers run before I/O. Those wait in a second list, in the same
 * order for the same reason.
 *
 * @module delivery/dispatch/send-deadlines
 */

/** A deadline that fires this much late gives a held-up answer this long more to be read. */
export const LATE_TIMER_MS = 100;

/** One send's place in the lists. */
export interface Deadline<T> {
  readonly item: T;
  /** When it expires (performance.now()). */
  dueMs: number;
  /** In the list of those given their extra wait. */
  late: boolean;
  prev: Deadline<T> | undefined;
  next: Deadline<T> | undefined;
  /** Still in a list: not expired and not removed. */
  listed: boolean;
}

/** A list of deadlines in the order they fall due. */
class Line<T> {
  head: Deadline<T> | undefined;
  tail: Deadline<T> | undefined;

  /** Puts `d` after the last one due no later than it: at the end, unless the timeout changed. */
  insert(d: Deadline<T>): void {
    let before = this.tail;
    while (before && before.dueMs > d.dueMs) before = before.prev;
    d.prev = before;
    d.next = before ? before.next : this.head;
    if (d.next) d.next.prev = d;
    else this.tail = d;
    if (before) before.next = d;
    else this.head = d;
  }

  remove(d: Deadline<T>): void {
    if (d.prev) d.prev.next = d.next;
    else this.head = d.next;
    if (d.next) d.next.prev = d.prev;
    else this.tail = d.prev;
    d.prev = d.next = undefined;
  }
}

export class SendDeadlines<T> {
  readonly #expire: (item: T) => void;
  readonly #onTime = new Line<T>();
  readonly #late = new Line<T>();
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now()). */
  #armedFor = Infinity;
  readonly #fire = () => this.#expireDue();

  /** @param expire called once for each item whose deadline passed (not for those removed first) */
  constructor(expire: (item: T) => void) {
    this.#expire = expire;
  }

  /** Starts `item`'s deadline, `timeoutMs` from `nowMs`; `remove` it when its send is over first. */
  add(item: T, timeoutMs: number, nowMs = performance.now()): Deadline<T> {
    const d: Deadline<T> = { item, dueMs: nowMs + timeoutMs, late: false, prev: undefined, next: undefined, listed: true };
    this.#onTime.insert(d);
    if (!this.#timer) this.#arm(d.dueMs, nowMs);
    else if (d === this.#onTime.head && d.dueMs < this.#armedFor) this.#arm(d.dueMs, nowMs);
    return d;
  }

  remove(d: Deadline<T>): void {
    if (!d.listed) return;
    d.listed = false;
    (d.late ? this.#late : this.#onTime).remove(d);
    // With no send left, no timer holds the process.
    if (!this.#onTime.head && !this.#late.head && this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#armedFor = Infinity;
    }
  }

  /** Every item whose deadline is running. */
  *items(): IterableIterator<T> {
    for (const line of [this.#onTime, this.#late]) for (let d = line.head; d; d = d.next) yield d.item;
  }

  #arm(dueMs: number, nowMs: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#armedFor = dueMs;
    this.#timer = setTimeout(this.#fire, Math.max(1, Math.ceil(dueMs - nowMs)));
  }

  #expireDue(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = performance.now();
    const expired: T[] = [];
    for (let d = this.#late.head; d && d.dueMs <= now; d = this.#late.head) {
      this.remove(d);
      expired.push(d.item);
    }
    for (let d = this.#onTime.head; d && d.dueMs <= now; d = this.#onTime.head) {
      this.#onTime.remove(d);
      if (now - d.dueMs > LATE_TIMER_MS) {
        d.late = true;
        d.dueMs = now + LATE_TIMER_MS;
        this.#late.insert(d);
      } else {
        d.listed = false;
        expired.push(d.item);
      }
    }
    const next = Math.min(this.#onTime.head?.dueMs ?? Infinity, this.#late.head?.dueMs ?? Infinity);
    if (next !== Infinity) this.#arm(next, now);
    for (const item of expired) this.#expire(item);
  }
}

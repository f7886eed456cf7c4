/**
 * In-process wake-ups between parts that no import connects: the write that commits an event and
 * the dispatcher that sends it, the intake that stores a notification and the worker that decrypts
 * it. Each signal is named here, once, with who emits it and who listens, so the hop is visible.
 *
 * Listeners run synchronously inside `emit`, on the emitter's call stack (a request handler's, say):
 * a listener that has real work to do schedules it instead of doing it there.
 *
 * @module signals
 */

type Listener<T> = (value: T) => void;

/** One named wake-up. */
export class Signal<T = void> {
  readonly #listeners = new Set<Listener<T>>();

  /** Calls `listener` on every emit until the returned function is called. */
  listen(listener: Listener<T>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(value: T): void {
    for (const listener of [...this.#listeners]) listener(value);
  }

  /** The value of the next emit: for tests and tools that wait on a worker instead of sleeping. */
  next(): Promise<T> {
    return new Promise((resolve) => {
      const stop = this.listen((value) => {
        stop();
        resolve(value);
      });
    });
  }

  get listeners(): number {
    return this.#listeners.size;
  }
}

/** Counts of one decryption pass, by outcome. */
export type InboundPassCounts = Readonly<Record<string, number>>;

/** One delivery attempt whose result was recorded. */
export interface DeliveryAttempted {
  orgId: string;
  webhookId: string;
  eventId: string;
  /** success, http_error, timeout, connect_error, refused_address or signing_error. */
  outcome: string;
  durationMs: number;
  /** When the result was recorded (ms). */
  atMs: number;
  /** This attempt failed for good: its webhook is disabled. */
  disabledWebhook: boolean;
}

/** One HTTP request answered by the API. */
export interface RequestAnswered {
  method: string;
  /** The route's pattern (`/v1/transactions/:id`), never the raw path; `unmatched` for a 404 outside every route. */
  route: string;
  status: number;
  seconds: number;
}

export interface Signals {
  /**
   * Events or deliveries were committed, or deliveries requeued: dispatchers look for due rows and
   * event streams read new events. Emitted after the commit by enqueue's outbox transaction and the
   * replays; another process's writes are found by the listeners' polls.
   */
  readonly outbox: Signal;
  /**
   * A webhook was moved, enabled, disabled or deleted, or its organization's signing key rotated:
   * emitted after the commit by the webhook services, and raised by the notification of another
   * node's on PostgreSQL (cluster/wakeups.ts). The dispatcher then checks every row it holds against
   * the database before sending it (delivery/dispatch/leases.ts); another process's change on SQLite
   * reaches it through its freshness window.
   */
  readonly webhookChanged: Signal;
  /** Card-network notifications were queued for decryption (intake, retries, key imports): the decrypt worker runs a pass. */
  readonly inbound: Signal;
  /** The decrypt worker finished a pass. */
  readonly inboundPassed: Signal<InboundPassCounts>;
  /** A card-network notification was taken in, with what intake did with it (stored, unmatched, replaced, held, duplicate). Emitted after its commit. */
  readonly inboundReceived: Signal<string>;
  /** A delivery attempt's result was recorded, by the dispatcher's recorder after its batch. */
  readonly deliveryAttempted: Signal<DeliveryAttempted>;
  /** The API answered a request, from the app's first middleware when the answer is finished. */
  readonly requestAnswered: Signal<RequestAnswered>;
  /** An API group commit wrote this many writes in one transaction. */
  readonly groupCommitted: Signal<number>;
  /** The database's storage became full (true) or writable again (false), by the storage watch (src/alerts/storage-watch.ts); the metrics set their gauge. */
  readonly storageFull: Signal<boolean>;
}

export function createSignals(): Signals {
  return {
    outbox: new Signal(),
    webhookChanged: new Signal(),
    inbound: new Signal(),
    inboundPassed: new Signal<InboundPassCounts>(),
    inboundReceived: new Signal<string>(),
    deliveryAttempted: new Signal<DeliveryAttempted>(),
    requestAnswered: new Signal<RequestAnswered>(),
    groupCommitted: new Signal<number>(),
    storageFull: new Signal<boolean>(),
  };
}

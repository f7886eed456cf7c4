/**
 * A full database or disk as one incident per process: the first write refused for want of space
 * opens it (one warning line, the `borderd_storage_full` gauge at 1, an operator alert if the alert
 * can still be written), and a probe write that succeeds (asked by /readyz, or after the API
 * accepted a change) closes it (one line, the gauge at 0, the alert resolved). Meanwhile the API answers 503 `storage_full` and /readyz 503, and each
 * refused write adds to the incident's count instead of writing an error with a stack.
 *
 * @module alerts/storage-watch
 */
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { BorderdError } from '../domain/errors.js';
import { withTransaction } from '../db/database.js';
import { probeStorage } from '../store/service-meta.js';
import { raiseAlert } from './alerts.js';

/** How long a client is told to wait before writing again. */
export const STORAGE_FULL_RETRY_AFTER_SECONDS = 30;

/** The API's answer to a write refused for want of space: nothing was written, the same write can succeed later. */
export const storageFull = (): BorderdError =>
  new BorderdError(503, 'storage_full', 'the database or its disk is full: nothing was written; retry the request later', {
    headers: { 'Retry-After': String(STORAGE_FULL_RETRY_AFTER_SECONDS) },
  });

interface Incident {
  since: number;
  /** Writes refused in this incident. */
  refused: number;
  /** The engine's error code of the first refusal (SQLITE_FULL, ENOSPC, 53100). */
  code: string;
}

export class StorageWatch {
  #incident: Incident | undefined;
  /** A probe under way: concurrent readiness checks share it. */
  #probing: Promise<void> | undefined;

  constructor(private readonly ctx: AppContext) {
    // A change the API accepted may have found space again; a probe write tells (a 2xx alone does not:
    // not every POST writes).
    ctx.signals.requestAnswered.listen((r) => {
      if (this.#incident && r.status < 300 && r.method !== 'GET' && r.method !== 'HEAD') void this.stillFull();
    });
  }

  get full(): boolean {
    return this.#incident !== undefined;
  }

  /** A write was refused for want of space (isStorageFull): the first of an incident opens it. */
  refused(err: unknown): void {
    if (this.#incident) {
      this.#incident.refused += 1;
      return;
    }
    const code = String((err as { code?: unknown } | null)?.code ?? 'unknown');
    this.#incident = { since: this.ctx.clock.now(), refused: 1, code };
    this.ctx.signals.storageFull.emit(true);
    const summary = `storage full (${code}): writes are refused with 503 storage_full until space returns; nothing acknowledged is lost`;
    void this.#alert('firing', summary, { code, since: isoAt(this.#incident.since) });
  }

  /** A probe write succeeded: an open incident ends, said once with what it refused. */
  #writable(): void {
    const incident = this.#incident;
    if (!incident) return;
    this.#incident = undefined;
    this.ctx.signals.storageFull.emit(false);
    const seconds = Math.round((this.ctx.clock.now() - incident.since) / 1000);
    void this.#alert('resolved', `storage writable again after ${seconds} s; ${incident.refused} write(s) were refused meanwhile`, {
      code: incident.code,
      since: isoAt(incident.since),
      refusedWrites: incident.refused,
    });
  }

  /**
   * For readiness: while an incident is open, tries a small write (probeStorage) and closes the
   * incident when it succeeds. Returns whether the storage is still full.
   */
  async stillFull(): Promise<boolean> {
    if (!this.#incident) return false;
    this.#probing ??= probeStorage(this.ctx.db)
      .then(() => this.#writable())
      .catch(() => undefined)
      .finally(() => (this.#probing = undefined));
    await this.#probing;
    return this.full;
  }

  /**
   * The warning line (raiseAlert writes it first) and, when the operator organization is set, the
   * alert event. On a full disk writing the event may fail too: the line stands alone then.
   */
  async #alert(state: 'firing' | 'resolved', summary: string, details: Record<string, string | number>): Promise<void> {
    try {
      await withTransaction(this.ctx, (ctx) => raiseAlert(ctx, { alert: 'storage_full', state, summary, details }));
    } catch (err) {
      this.ctx.log.debug({ alert: 'storage_full', state, reason: (err as Error).message }, 'operator alert event not written');
    }
  }
}

const watches = new WeakMap<object, StorageWatch>();

/** The process's one watch: keyed by its signals, which every context of the process shares. */
export function storageWatch(ctx: AppContext): StorageWatch {
  let watch = watches.get(ctx.signals);
  if (!watch) {
    watch = new StorageWatch(ctx);
    watches.set(ctx.signals, watch);
  }
  return watch;
}

/**
 * Expected refusals (a closed endpoint answering 503 to whoever calls it) as warning lines that
 * cannot flood the log: at most one line per key (a code and a sender) per interval, saying how
 * many refusals it stands for. An anonymous caller otherwise writes a log line, with a stack, per
 * request it sends.
 *
 * @module logging/refusal-log
 */
import type { Logger } from 'pino';
import { remember } from '../domain/bounded-map.js';
import type { Clock } from '../domain/clock.js';

/** One line per key at most this often. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** Keys remembered at once; past it the least recently refused is forgotten (and logs again when it returns). */
const MAX_KEYS = 10_000;

interface Window {
  /** When the last line for this key was written. */
  loggedAt: number;
  /** Refusals since that line, not yet in a line. */
  unlogged: number;
}

export class RefusalLog {
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly log: Pick<Logger, 'warn'>,
    private readonly clock: Clock,
    private readonly intervalMs = REFUSAL_LOG_INTERVAL_MS,
  ) {}

  /**
   * Counts one refusal under `key`; writes a warning with `count` (the refusals it stands for:
   * this one and those held back since the key's last line) unless the key had a line within the
   * interval.
   */
  note(key: string, fields: Record<string, unknown>, message: string): void {
    const now = this.clock.now();
    const window = this.#windows.get(key);
    if (window && now - window.loggedAt < this.intervalMs) {
      window.unlogged += 1;
      remember(this.#windows, key, window, MAX_KEYS);
      return;
    }
    const count = (window?.unlogged ?? 0) + 1;
    remember(this.#windows, key, { loggedAt: now, unlogged: 0 }, MAX_KEYS);
    this.log.warn({ ...fields, count, intervalSeconds: this.intervalMs / 1000 }, message);
  }
}

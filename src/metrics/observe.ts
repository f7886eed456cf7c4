/**
 * The counters and histograms follow the process's typed signals (src/signals.ts): each fact is
 * emitted once where it happens (an attempt recorded, a request answered, a
 * notification taken in or decrypted, a transaction committed), and only here does it become a
 * metric. Nothing in the dispatcher, the API or the inbound code knows about Prometheus.
 *
 * @module metrics/observe
 */
import type { Database } from '../db/database.js';
import { timeOfId } from '../domain/ids.js';
import type { Signals } from '../signals.js';
import type { Metrics } from './definitions.js';

/** What a decryption pass counts that is an outcome of a notification (not `busy` or `skipped`, which are the pass's own). */
const DECRYPTION_OUTCOMES = ['decrypted', 'retry', 'failed', 'replaced'];

/** Starts counting; the returned function stops it. */
export function observe(signals: Signals, db: Database, m: Metrics): () => void {
  const stops = [
    signals.deliveryAttempted.listen((a) => {
      m.deliveryAttempts.inc({ outcome: a.outcome });
      // An attempt that sent nothing (signing) or was refused before sending has no send time.
      if (a.outcome !== 'signing_error' && a.outcome !== 'refused_address') m.deliveryDuration.observe(a.durationMs / 1000);
      // An event id carries the millisecond it was made, inside the transaction that committed it.
      const madeMs = a.outcome === 'success' ? timeOfId(a.eventId) : undefined;
      if (madeMs !== undefined) m.commitToDelivery.observe(Math.max(0, a.atMs - madeMs) / 1000);
    }),
    signals.requestAnswered.listen((r) => {
      m.httpRequests.inc({ method: r.method, route: r.route, status: String(r.status) });
      m.httpDuration.observe({ method: r.method, route: r.route }, r.seconds);
    }),
    signals.inboundReceived.listen((outcome) => m.inboundNotifications.inc({ stage: 'intake', outcome })),
    signals.inboundPassed.listen((counts) => {
      for (const outcome of DECRYPTION_OUTCOMES) {
        const n = counts[outcome] ?? 0;
        if (n > 0) m.inboundNotifications.inc({ stage: 'decryption', outcome }, n);
      }
    }),
    signals.groupCommitted.listen((writes) => m.groupCommitWrites.observe(writes)),
    signals.storageFull.listen((full) => m.storageFull.set(full ? 1 : 0)),
  ];
  db.onCommit = (seconds) => m.transactionDuration.observe(seconds);
  return () => {
    for (const stop of stops) stop();
    db.onCommit = undefined;
  };
}

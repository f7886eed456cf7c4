/**
 * One line per event on the console: time, type and id, [status], target, latency. --json prints
 * the same facts as one JSON object per line. Never the body: it may hold PII.
 *
 * @module receiver/console-report
 */
export interface EventReport {
  time: string;
  eventId: string;
  eventType: string;
  /** forwarded | duplicate | skipped | rejected | replayed | failed */
  outcome: string;
  status: number;
  target: string | null;
  latencyMs: number | null;
  detail?: string;
}

export type Reporter = {
  event(report: EventReport): void;
  /** Lifecycle notes: listening, connected, reconnecting, resumed. */
  note(message: string, fields?: Record<string, unknown>): void;
  /** Something went wrong but the receiver goes on (a malformed stream message, an event given up on): stderr in text mode. */
  error(message: string, fields?: Record<string, unknown>): void;
};

export function createReporter(
  json: boolean,
  write: (line: string) => void = (l) => process.stdout.write(l + '\n'),
  writeError: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): Reporter {
  return {
    event(report) {
      // Whole milliseconds on the console and in JSON lines; the forwarder measures finer.
      const r = report.latencyMs === null ? report : { ...report, latencyMs: Math.round(report.latencyMs) };
      if (json) return write(JSON.stringify({ kind: 'event', ...r }));
      const latency = r.latencyMs === null ? '' : ` ${r.latencyMs}ms`;
      const target = r.target ? ` -> ${r.target}` : '';
      const detail = r.detail ? ` (${r.detail})` : '';
      write(`${r.time}  ${r.eventType} ${r.eventId}  [${r.status}] ${r.outcome}${target}${latency}${detail}`);
    },
    note(message, fields = {}) {
      write(json ? JSON.stringify({ kind: 'note', time: new Date().toISOString(), message, ...fields }) : message);
    },
    error(message, fields = {}) {
      // --json keeps every line on stdout for scripts; text mode puts problems on stderr.
      if (json) write(JSON.stringify({ kind: 'error', time: new Date().toISOString(), message, ...fields }));
      else writeError(`${new Date().toISOString()}  error: ${message}`);
    },
  };
}

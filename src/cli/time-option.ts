/**
 * The one parser for a time given on the command line (`--since`, `--replay-since`, `--before`):
 * an ISO 8601 time, or a duration back from now (90s, 30m, 2h, 7d). Bad usage is one line and
 * exit 2, like every other option.
 *
 * @module cli/time-option
 */
import { ISO_TIME_HINT, parseIsoTime } from '../domain/iso-time.js';
import { CliExit } from './context.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The time `raw` names, as ISO 8601 UTC; `option` is the flag's name for the message. */
export function parseTimeOption(option: string, raw: string, nowMs: number = Date.now()): string {
  const rel = /^(\d+)\s*(s|m|h|d)$/.exec(raw.trim());
  if (rel) return new Date(nowMs - Number(rel[1]) * UNIT_MS[rel[2] as keyof typeof UNIT_MS]).toISOString();
  const ms = parseIsoTime(raw.trim());
  if (ms === undefined) throw new CliExit(2, `--${option} ${raw}: give ${ISO_TIME_HINT}, or a duration back from now (30m, 2h, 7d)`);
  return new Date(ms).toISOString();
}

/**
 * A time a caller gives (a replay's start, a stream's `since`): ISO 8601 with its zone, `Z` or
 * `±hh:mm`, seconds and fraction optional. Nothing looser: V8's Date.parse also reads "Nov 20" or
 * "5" (both in 2001) and "hello 1", and a time without a zone in the host's own zone, so a typo
 * would replay years of events or start from a time that depends on the machine.
 *
 * @module domain/iso-time
 */
const ISO_TIME_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export const ISO_TIME_HINT = 'an ISO 8601 time with a zone, e.g. 2026-01-01T00:00:00Z';

/** Milliseconds since the epoch, or undefined when `value` is not such a time (or no real date). */
export function parseIsoTime(value: string): number | undefined {
  if (!ISO_TIME_WITH_ZONE.test(value)) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls a day that does not exist over (February 30 is March 2): the date as written
  // must be the date of the instant, in the time's own offset.
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(value);
  const shift = offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000 : 0;
  return new Date(ms + shift).toISOString().slice(0, 16) === value.slice(0, 16) ? ms : undefined;
}

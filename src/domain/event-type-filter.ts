/**
 * Event-type filters: a list of types, each exact or a prefix ending in `*` (`Transaction_*`). An
 * empty list takes every type. The same rule picks a webhook's events and `borderd receive
 * --route`'s local URL. An event's write applies it in SQL (store/event-fanout.ts, so that the write
 * is one statement on PostgreSQL); test/delivery/events-fanout.test.ts holds that form to this one.
 *
 * @module domain/event-type-filter
 */

/** Whether `pattern` (an exact type, or a prefix followed by `*`) takes `type`. */
export function typeMatches(pattern: string, type: string): boolean {
  return pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;
}

/** Whether a filter takes `type`: an empty or absent filter takes all. */
export function filterTakes(filter: readonly string[] | null | undefined, type: string): boolean {
  return !filter || filter.length === 0 || filter.some((p) => typeMatches(p, type));
}

/**
 * Patterns of `filter` that take none of `known`: a typo in a filter would silently drop every event,
 * so it is refused instead.
 */
export function unknownPatterns(filter: readonly string[], known: readonly string[]): string[] {
  return filter.filter((p) => !known.some((t) => typeMatches(p, t)));
}

/**
 * The resource an event is about: its `data.id` (a transaction, an identity, a virtual account).
 * A webhook with `ordering: resource` delivers the events of one resource in commit order.
 *
 * @module domain/resource-key
 */

/** The event's `data.id` as text; null when its data has no id (such an event waits for nothing). */
export function resourceKeyOf(event: unknown): string | null {
  const data = (event as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null) return null;
  const id = (data as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/**
 * Sets `key` in a Map used as a bounded cache: the entry becomes the newest, and the oldest entries
 * go while the map is full. Maps keep insertion order, so re-setting an entry on each use (delete,
 * then this) makes it least-recently-used eviction. `max` below 1 keeps nothing.
 *
 * @module domain/bounded-map
 */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (max < 1) return;
  while (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

/**
 * JSON can spell a lone UTF-16 surrogate (`"\ud800"`), which no UTF-8 text holds: SQLite stores
 * such a string as bytes that read back as U+FFFD, so a value that was acknowledged would come back
 * different (a webhook url, an eventId). Such a value is refused where it enters, with its path.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The path of the first string or key in a parsed JSON value that holds a lone surrogate, like
 * `body.addresses.0.address`; undefined when every string is well formed. Walks with its own stack:
 * a deeply nested body must not overflow the call stack.
 */
export function illFormedTextPath(value: unknown, location: string): string | undefined {
  const stack: [unknown, string][] = [[value, location]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}.${i}`]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        if (LONE_SURROGATE.test(key)) return path;
        stack.push([child, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

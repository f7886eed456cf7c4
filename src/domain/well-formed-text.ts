/**
 * JSON can spell a lone UTF-16 surrogate (`"\ud800"`), which no UTF-8 text holds: SQLite stores
 * such a string as bytes that read back as U+FFFD, so a value that was acknowledged would come back
 * different (a webhook url, an eventId). Such a value is refused where it enters, with its path.
 *
 * @module domain/well-formed-text
 */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether a raw JSON body can hold a surrogate at all: only its `\uD800`–`\uDFFF` escapes can make
 * one (UTF-8 bytes that would encode one are decoded as U+FFFD). A scan of the bytes, much cheaper
 * than walking the parsed value, so almost every body skips the walk.
 */
export function maySpellSurrogate(raw: Buffer): boolean {
  for (let at = raw.indexOf('\\u'); at !== -1; at = raw.indexOf('\\u', at + 2)) {
    if (isSurrogateLead(raw[at + 2], raw[at + 3])) return true;
  }
  return false;
}

/** `d` or `D`, then one of 8, 9, a to f, A to F: the first two hex digits of D800 to DFFF. */
function isSurrogateLead(d: number | undefined, h: number | undefined): boolean {
  if (d !== 0x64 && d !== 0x44) return false;
  return h !== undefined && ((h >= 0x38 && h <= 0x39) || (h >= 0x61 && h <= 0x66) || (h >= 0x41 && h <= 0x46));
}

/**
 * The path of the first string or key in a parsed JSON value that holds a lone surrogate, like
 * `body.addresses.0.address`; undefined when every string is well formed. Walks with its own stack
 * (a deeply nested body must not overflow the call stack) and visits only strings and containers.
 */
export function illFormedTextPath(value: unknown, location: string): string | undefined {
  const stack: [unknown, string][] = [[value, location]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (isTextOrContainer(v[i])) stack.push([v[i], `${path}.${i}`]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        if (LONE_SURROGATE.test(key)) return path;
        if (isTextOrContainer(child)) stack.push([child, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

const isTextOrContainer = (v: unknown): boolean => typeof v === 'string' || (v !== null && typeof v === 'object');

/**
 * Text without a leading byte order mark. UTF-8 text saved by some editors starts with U+FEFF, and
 * JSON parsers may skip it (RFC 8259, 8.1; body-parser does): it marks the encoding, it is not content.
 *
 * @module domain/byte-order-mark
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

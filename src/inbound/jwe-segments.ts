/**
 * The alphabet of a compact JWE's five segments. RFC 7515 segments are base64url without padding
 * (`A-Z a-z 0-9 - _`). The card network's client library (`mastercard-client-encryption`, JWE mode)
 * makes its "base64url" from base64 by replacing `+` with `-` and stripping `=`, but replaces a
 * backslash (which base64 never holds) where it means `/`: its segments can hold `/` and never `_`,
 * `+` or `=`. Those two alphabets are accepted, one per token; nothing else (no `+`, no `=` padding,
 * no `_` and `/` mixed, no length no base64 encoding can have).
 *
 * @module inbound/jwe-segments
 */
export type SegmentAlphabet = 'base64url' | 'library';

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const LIBRARY = /^[A-Za-z0-9/-]*$/;

export function segmentAlphabet(segments: readonly string[]): SegmentAlphabet | undefined {
  if (segments.some((s) => s.length % 4 === 1)) return undefined;
  if (segments.every((s) => BASE64URL.test(s))) return 'base64url';
  if (segments.every((s) => LIBRARY.test(s))) return 'library';
  return undefined;
}

/** Decodes a segment already accepted by segmentAlphabet. */
export function decodeSegment(segment: string): Buffer {
  return Buffer.from(segment.replace(/\//g, '_'), 'base64url');
}

/**
 * The inbound card-network notification body (spec: "Inbound card-network notification body").
 * The spec types `data` as an object holding the JWE-encrypted payload and does not say which
 * fields are required; borderd requires all five, and takes `data` either as the compact JWE string
 * itself or as an object with one string member holding it (the `{ "encryptedValue": "…" }` shape
 * the card network's client library produces).
 *
 * @module inbound/notification
 */
import { z } from 'zod';
import { decodeSegment, segmentAlphabet } from './jwe-segments.js';
import { withoutByteOrderMark } from '../domain/byte-order-mark.js';

const MAX = 255;

/**
 * True for five dot-separated segments in base64url (or the card network library's variant with "/",
 * jwe-segments.ts) whose first decodes to a JSON object with alg and enc.
 */
export function looksLikeCompactJwe(value: string): boolean {
  const parts = value.split('.');
  if (parts.length !== 5 || !segmentAlphabet(parts)) return false;
  const [header, key, iv, , tag] = parts as [string, string, string, string, string];
  if (!header || !key || !iv || !tag) return false;
  try {
    const parsed: unknown = JSON.parse(decodeSegment(header).toString('utf8'));
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as { alg?: unknown }).alg === 'string' &&
      typeof (parsed as { enc?: unknown }).enc === 'string'
    );
  } catch {
    return false;
  }
}

const field = (name: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .min(1, `${name} must not be empty`)
    .max(MAX, `${name} must be at most ${MAX} characters`);

const jweString = z
  .string()
  .refine(looksLikeCompactJwe, 'data must be a compact JWE (five base64url segments: header.encryptedKey.iv.ciphertext.tag)');

const jweData = z.union(
  [
    jweString,
    z
      .record(z.string(), z.unknown())
      .refine(
        (o) => Object.keys(o).length === 1 && typeof Object.values(o)[0] === 'string' && looksLikeCompactJwe(Object.values(o)[0] as string),
        {
          message: 'data as an object must hold exactly one member whose value is a compact JWE string',
        },
      ),
  ],
  { error: (issue) => (issue.input === undefined ? 'data is required' : 'data must be a compact JWE string or an object holding one') },
);

/**
 * A field the spec does not list is kept, as received: the card network may add one, and a refused
 * genuine notification is redelivered and refused again until it is lost. What such fields can make
 * borderd store is bounded by inbound.bodyLimitBytes instead.
 */
export const inboundNotificationSchema = z.object({
  eventId: field('eventId'),
  eventType: field('eventType'),
  eventCreatedDate: field('eventCreatedDate'),
  ica: field('ica'),
  data: jweData,
});

export type InboundNotification = z.output<typeof inboundNotificationSchema>;

/**
 * Parses a stored body as intake's JSON parser read it. The body is stored exactly as received, and
 * the parser (body-parser) drops a leading byte order mark, as RFC 8259 lets a parser do; a body
 * acknowledged with one must not then fail here for it.
 */
export function parseStoredBody(rawBody: string): unknown {
  return JSON.parse(withoutByteOrderMark(rawBody));
}

/** The compact JWE string inside `data`, whichever accepted shape it came in. */
export function compactJweOf(data: InboundNotification['data']): string {
  return typeof data === 'string' ? data : (Object.values(data)[0] as string);
}

/**
 * Masking of identity PII for tokens with piiAccess "redacted". The record keeps its shape and
 * types (every field present stays present and a string stays a string of the same length, counted
 * in code points), so clients parse both forms with one schema.
 *
 * @module domain/pii-redaction
 */
const chars = (s: string): string[] => Array.from(s);
/** Fewest characters that must stay masked for any to be shown. */
const MIN_MASKED = 2;

const keepVisible = (s: string, visible: (i: number, length: number) => boolean, count: number): string => {
  const cs = chars(s);
  if (cs.length - count < MIN_MASKED) return '*'.repeat(cs.length);
  return cs.map((c, i) => (visible(i, cs.length) ? c : '*')).join('');
};

export const maskKeepFirst = (s: string): string => keepVisible(s, (i) => i === 0, 1);
export const maskKeepLast2 = (s: string): string => keepVisible(s, (i, n) => i >= n - 2, 2);
export const maskAll = (s: string): string => '*'.repeat(chars(s).length);
export function maskEmail(s: string): string {
  const at = s.lastIndexOf('@');
  return at < 0 ? maskKeepFirst(s) : maskKeepFirst(s.slice(0, at)) + s.slice(at);
}

type Masker = (s: string) => string;
const TOP_LEVEL: Record<string, Masker> = {
  firstName: maskKeepFirst,
  lastName: maskKeepFirst,
  secondLastName: maskKeepFirst,
  middleName: maskKeepFirst,
  nameInLocalScript: maskKeepFirst,
  // Free text about the person: an employer, an occupation, a stated purpose, a birthplace (which,
  // with the date of birth, is a common identity-verification answer) can each point to them.
  employerName: maskKeepFirst,
  activity: maskKeepFirst,
  accountPurposeOther: maskKeepFirst,
  placeOfBirthCity: maskKeepFirst,
  taxId: maskKeepLast2,
  phone: maskKeepLast2,
  email: maskEmail,
  dateOfBirth: () => '****-**-**',
};
const ADDRESS: Record<string, Masker> = { street1: maskKeepFirst, street2: maskKeepFirst, postalCode: maskAll };

const DOCUMENT: Record<string, Masker> = { idNumber: maskKeepLast2 };

/** Every identity field that is personal data: what redacted tokens see masked and logs never carry. */
export const PII_FIELDS: readonly string[] = [...Object.keys(TOP_LEVEL), ...Object.keys(ADDRESS), ...Object.keys(DOCUMENT)];

const applyTo = <T extends Record<string, unknown>>(obj: T, maskers: Record<string, Masker>): T => {
  const out: Record<string, unknown> = { ...obj };
  for (const [key, mask] of Object.entries(maskers)) if (typeof out[key] === 'string') out[key] = mask(out[key]);
  return out as T;
};

/**
 * The identity's data with its personal data masked:
 * - names (firstName, lastName, secondLastName, middleName, nameInLocalScript), street lines and
 *   free text about the person (employerName, activity, accountPurposeOther, placeOfBirthCity):
 *   first character kept, the rest replaced by "*";
 * - taxId, phone, document idNumber: all but the last two characters replaced by "*";
 * - email: the local part masked like a name, the domain kept ("j***@example.com");
 * - dateOfBirth: "****-**-**"; postalCode: every character replaced by "*".
 * A value keeps its visible characters only when at least two others stay masked; a shorter one is
 * masked entirely ("A" → "*", "Al" → "**", taxId "12" → "**", "123" → "***", "a@x.com" → "*@x.com"),
 * since showing one of two characters, or the whole value, is no masking.
 */
export function redactIdentityData<T extends Record<string, unknown>>(data: T): T {
  const out: Record<string, unknown> = applyTo(data, TOP_LEVEL);
  if (out.address && typeof out.address === 'object') out.address = applyTo(out.address as Record<string, unknown>, ADDRESS);
  if (Array.isArray(out.documents)) {
    out.documents = out.documents.map((d: unknown) => (d && typeof d === 'object' ? applyTo(d as Record<string, unknown>, DOCUMENT) : d));
  }
  return out as T;
}

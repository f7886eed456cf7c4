/**
 * Country codes and corridors as borderd accepts them: ISO 3166-1 alpha-2, upper case, on the
 * standard's list, and ZZ for an unknown country where transactions are imported and filtered.
 *
 * @module domain/country-code
 */
import countries from 'i18n-iso-countries/index.js';
import { z } from 'zod';

/** Two upper-case letters: the shape; whether the code is on the list is asked apart, for its own message. */
const TWO_LETTERS = /^[A-Z]{2}$/;

/**
 * Country codes: ISO 3166-1 alpha-2, upper case, checked against the standard's list
 * (i18n-iso-countries' codes; its `index.js` alone, since the package's main entry also loads every
 * language's names into the daemon's memory for nothing borderd shows). XK (Kosovo), a
 * user-assigned code in wide use, is on that list.
 */
export function isCountryCode(code: string): boolean {
  // isValid alone also takes lower case (and alpha-3 codes).
  return TWO_LETTERS.test(code) && countries.isValid(code);
}

/** The code of an unknown country: accepted where transactions are imported and filtered. */
export const UNKNOWN_COUNTRY = 'ZZ';

const isCountryCodeOrUnknown = (code: string): boolean => code === UNKNOWN_COUNTRY || isCountryCode(code);

/** A country code (an identity's citizenship, address, documents). */
export const countryCode = z
  .string()
  .regex(TWO_LETTERS, { message: 'must be a two-letter country code, upper case (e.g. MX)', abort: true })
  .refine(isCountryCode, 'is not an ISO 3166-1 alpha-2 country code')
  .describe('ISO 3166-1 alpha-2 country code');

/** A country code or ZZ, unknown (an imported transaction, the summary's filter). */
export const countryCodeOrUnknown = z
  .string()
  .regex(TWO_LETTERS, { message: 'must be a two-letter country code, upper case (ZZ allowed)', abort: true })
  .refine(isCountryCodeOrUnknown, 'is not an ISO 3166-1 alpha-2 country code, nor ZZ')
  .describe('ISO 3166-1 alpha-2 country code, or ZZ (unknown)');

/** A corridor: two country codes (or ZZ) joined by a dash, e.g. US-MX. */
export const corridor = z
  .string()
  .regex(/^[A-Z]{2}-[A-Z]{2}$/, { message: 'must be two country codes joined by a dash, e.g. US-MX', abort: true })
  .refine((c) => c.split('-').every(isCountryCodeOrUnknown), 'holds a code that is not an ISO 3166-1 alpha-2 country code, nor ZZ')
  .describe('two ISO 3166-1 alpha-2 country codes (or ZZ) joined by a dash, e.g. US-MX');

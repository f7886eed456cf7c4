import { describe, expect, it } from 'vitest';
import { corridor, countryCode, countryCodeOrUnknown, isCountryCode } from '../../src/domain/country-code.js';

const messages = (r: { error?: { issues: { message: string }[] } }) => r.error?.issues.map((i) => i.message) ?? [];

describe('country codes', () => {
  it('takes the ISO 3166-1 alpha-2 list, upper case, and nothing of the right shape that is not on it', () => {
    for (const code of ['MX', 'US', 'BR', 'DE', 'AX', 'XK', 'SS', 'BQ']) expect(isCountryCode(code)).toBe(true);
    // Shaped like a code: reserved or never assigned (UK is reserved; the code is GB), or ZZ, unknown.
    for (const code of ['QQ', 'XX', 'AA', 'UK', 'EU', 'ZZ']) expect(isCountryCode(code)).toBe(false);
    for (const code of ['mx', 'Mx', 'MEX', 'M', '', ' MX']) expect(isCountryCode(code)).toBe(false);
  });

  it('says which is wrong, the shape or the code, once', () => {
    expect(messages(countryCode.safeParse('mx'))).toEqual(['must be a two-letter country code, upper case (e.g. MX)']);
    expect(messages(countryCode.safeParse('QQ'))).toEqual(['is not an ISO 3166-1 alpha-2 country code']);
    expect(countryCode.safeParse('ZZ').success).toBe(false);
    expect(countryCodeOrUnknown.safeParse('ZZ').success).toBe(true);
    expect(messages(countryCodeOrUnknown.safeParse('QQ'))).toEqual(['is not an ISO 3166-1 alpha-2 country code, nor ZZ']);
  });

  it('takes a corridor of two codes (or ZZ), each on the list', () => {
    for (const c of ['US-MX', 'ZZ-BR', 'MX-ZZ']) expect(corridor.safeParse(c).success).toBe(true);
    expect(messages(corridor.safeParse('US-QQ'))).toEqual(['holds a code that is not an ISO 3166-1 alpha-2 country code, nor ZZ']);
    expect(messages(corridor.safeParse('USMX'))).toEqual(['must be two country codes joined by a dash, e.g. US-MX']);
  });
});

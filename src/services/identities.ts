/**
 * Identities: created by operators (admin API, CLI import), listed by the organization's clients.
 * The spec shows one value per enumeration; those fields accept any PascalCase word so that values
 * not shown in the spec are not refused.
 *
 * @module services/identities
 */
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { isoAt } from '../domain/clock.js';
import { isCalendarDate } from '../domain/calendar-date.js';
import { countryCode } from '../domain/country-code.js';
import { BorderdError, notFound, type FieldError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { redactIdentityData } from '../domain/pii-redaction.js';
import type { PiiAccess } from '../store/api-clients.js';
import { getOrganization } from '../store/organizations.js';
import {
  getIdentity,
  insertIdentity,
  listIdentities,
  updateIdentityFlags,
  type Identity,
  type IdentityFilter,
  type ListedIdentity,
} from '../store/identities.js';
import { zodIssuesToFieldErrors } from '../domain/field-errors.js';
import { importRefused } from './import-errors.js';
import { withTransaction } from '../db/database.js';

const text = z.string().max(500);
const date = z.string().refine(isCalendarDate, 'must be a real date YYYY-MM-DD');
const enumWord = z.string().regex(/^[A-Z][A-Za-z0-9]{0,63}$/, 'must be an enumeration value such as the spec shows (PascalCase word)');

export const identityDataSchema = z.strictObject({
  firstName: text.optional(),
  lastName: text.optional(),
  secondLastName: text.optional(),
  middleName: text.optional(),
  taxId: text.optional(),
  dateOfBirth: date.optional(),
  email: z.email().max(320).optional(),
  phone: z
    .string()
    .regex(/^\+?[0-9 ()-]{4,32}$/, 'must be a phone number')
    .optional(),
  activity: text.optional(),
  sex: enumWord.optional(),
  address: z
    .strictObject({
      id: text.optional(),
      street1: text.optional(),
      street2: text.optional(),
      city: text.optional(),
      state: text.optional(),
      country: countryCode.optional(),
      postalCode: text.optional(),
    })
    .optional(),
  documents: z
    .array(
      z.strictObject({
        id: text.optional(),
        issuingCountry: countryCode.optional(),
        type: enumWord.optional(),
        subType: enumWord.optional(),
        idNumber: text.optional(),
        issuedDate: date.optional(),
        expiryDate: date.optional(),
      }),
    )
    .max(50)
    .optional(),
  occupationCode: z
    .string()
    .regex(/^\d{1,12}$/, 'must be a string of digits')
    .optional(),
  employmentStatus: enumWord.optional(),
  sourceOfFunds: enumWord.optional(),
  nameInLocalScript: text.optional(),
  employerName: text.optional(),
  sourceOfWealth: enumWord.optional(),
  accountPurpose: enumWord.optional(),
  accountPurposeOther: text.optional(),
  monthlyAmounts: enumWord.optional(),
  actingAsIntermediary: z.boolean().optional(),
  citizenship: countryCode.optional(),
  nationalities: z.array(countryCode).max(20).optional(),
  placeOfBirthCountry: countryCode.optional(),
  placeOfBirthCity: text.optional(),
  hasForeignTaxRegistration: z.boolean().optional(),
});

/**
 * Identity data as GET /v1/identities answers it, and as /openapi.json publishes it. A redacted
 * token gets email, phone and dateOfBirth masked with "*" (domain/pii-redaction.ts), which their input
 * formats refuse; here they are plain strings, so one schema describes the answers of both tokens.
 */
export const listedIdentityDataSchema = identityDataSchema.extend({
  email: z.string().max(320).optional().describe('an email address; the local part masked ("a****@example.com") for piiAccess "redacted"'),
  phone: z.string().max(33).optional().describe('a phone number; all but the last two characters "*" for piiAccess "redacted"'),
  dateOfBirth: z.string().length(10).optional().describe('YYYY-MM-DD; "****-**-**" for piiAccess "redacted"'),
});

export const identityTypeSchema = z.enum(['Personal', 'Business']);

export const newIdentitySchema = z.strictObject({
  type: identityTypeSchema,
  deleted: z.boolean().default(false),
  hasComplianceChecks: z.boolean().default(false),
  data: identityDataSchema.default({}),
});
export type NewIdentity = z.output<typeof newIdentitySchema>;

async function insertOne(ctx: AppContext, orgId: string, input: NewIdentity, nowMs: number): Promise<Identity> {
  const identity: Identity = {
    id: newId('idn', nowMs),
    type: input.type,
    deleted: input.deleted,
    hasComplianceChecks: input.hasComplianceChecks,
    data: input.data,
  };
  await insertIdentity(ctx.db, { ...identity, orgId, createdAt: isoAt(nowMs) });
  return identity;
}

export async function createIdentity(ctx: AppContext, orgId: string, input: NewIdentity): Promise<Identity> {
  if (!(await getOrganization(ctx.db, orgId))) throw notFound(`organization ${orgId}`);
  return await insertOne(ctx, orgId, input, ctx.clock.now());
}

/**
 * Parses JSON lines (one identity per line, blank lines skipped) and inserts them in ONE transaction:
 * any bad line refuses the whole file with one error per bad line, paths prefixed `line N`.
 * onProgress gets (written, identities in the file) every 500 and once at the end.
 */
export async function importIdentities(
  ctx: AppContext,
  orgId: string,
  lines: string[],
  onProgress?: (done: number, total: number) => void,
): Promise<{ imported: number; ids: string[] }> {
  if (!(await getOrganization(ctx.db, orgId))) throw notFound(`organization ${orgId}`);
  const errors: FieldError[] = [];
  const parsed: NewIdentity[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      errors.push({ path: `line ${i + 1}`, message: `not JSON: ${(err as Error).message}` });
      return;
    }
    const r = newIdentitySchema.safeParse(value);
    if (r.success) parsed.push(r.data);
    else errors.push(...zodIssuesToFieldErrors(r.error, `line ${i + 1}`));
  });
  // As the transaction import does: an empty file is more likely the wrong file than nothing to add.
  if (parsed.length === 0 && errors.length === 0) errors.push({ path: 'file', message: 'holds no identities' });
  if (errors.length) throw importRefused(errors);
  const now = ctx.clock.now();
  const ids = await withTransaction(ctx, async (ctx) => {
    const inserted: string[] = [];
    for (const [i, p] of parsed.entries()) {
      inserted.push((await insertOne(ctx, orgId, p, now)).id);
      if (onProgress && (i + 1) % 500 === 0) onProgress(i + 1, parsed.length);
    }
    return inserted;
  });
  // The total is the identities of the file (blank lines are not counted), so the bar ends at 100%.
  onProgress?.(ids.length, parsed.length);
  return { imported: ids.length, ids };
}

/** Filters that match on personal data: a redacted token could rebuild a value from them one character at a time. */
const PII_FILTERS = ['name', 'email'] as const;

/**
 * A page of identities as the JSON text GET /v1/identities answers: `{ hasMore, data: Identity[]
 * }`, ordered by id. With piiAccess "all" each identity's data is the JSON text it is stored as,
 * spliced in without being parsed and serialized again (which would be the largest share of the
 * route's own work after SQLite, and garbage for the collector); "redacted" parses it to mask it.
 * It takes a connection, not the context: the daemon runs it on a read worker's connection
 * (src/services/offloaded-reads.ts).
 */
export async function identitiesPageJson(db: Db, orgId: string, filter: IdentityFilter, piiAccess: PiiAccess): Promise<string> {
  if (piiAccess === 'redacted') {
    const used = PII_FILTERS.filter((f) => filter[f] !== undefined);
    if (used.length) {
      const names = used.join(' and ');
      throw new BorderdError(
        403,
        'pii_filter_forbidden',
        `the ${names} filter${used.length > 1 ? 's need' : ' needs'} a token with piiAccess "all"; this token has piiAccess "redacted" (a prefix filter would reveal the masked values)`,
        {
          errors: used.map((f) => ({ path: `query.${f}`, message: 'needs piiAccess "all"' })),
        },
      );
    }
  }
  const rows = await listIdentities(db, orgId, filter);
  const items = rows.slice(0, filter.limit).map((i) => identityJson(i, piiAccess));
  return `{"hasMore":${rows.length > filter.limit},"data":[${items.join(',')}]}`;
}

/** One Identity as JSON text, its fields in the order of the API's schema. */
function identityJson(i: ListedIdentity, piiAccess: PiiAccess): string {
  const data =
    piiAccess === 'redacted' ? JSON.stringify(redactIdentityData(JSON.parse(i.dataJson) as Record<string, unknown>)) : i.dataJson;
  return `{"id":${JSON.stringify(i.id)},"type":${JSON.stringify(i.type)},"deleted":${i.deleted},"hasComplianceChecks":${i.hasComplianceChecks},"data":${data}}`;
}

export const identityFlagsSchema = z
  .strictObject({ deleted: z.boolean().optional(), hasComplianceChecks: z.boolean().optional() })
  .refine((f) => f.deleted !== undefined || f.hasComplianceChecks !== undefined, 'name deleted and/or hasComplianceChecks');

/** Operator change of an identity's flags (compliance checks done, identity deleted). */
export async function setIdentityFlags(
  ctx: AppContext,
  orgId: string,
  id: string,
  flags: z.output<typeof identityFlagsSchema>,
): Promise<Identity> {
  if (!(await updateIdentityFlags(ctx.db, orgId, id, flags))) throw notFound(`identity ${id}`);
  return (await getIdentity(ctx.db, orgId, id))!;
}

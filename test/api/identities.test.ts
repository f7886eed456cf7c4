import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg } from '../support/context.js';
import { createIdentity, importIdentities } from '../../src/services/identities.js';
import { createApiClient, createOrganization } from '../../src/services/organizations.js';
import { listIdentities, namePlan } from '../../src/store/identities.js';
import { onPostgres } from '../support/postgres.js';
import { plansOf } from '../support/query-plans.js';
import { identitySchema } from '../../src/api/routes/identities.js';

const admin = `Bearer ${ADMIN_TOKEN}`;

async function setup() {
  const ctx = await makeContext();
  const api = makeApi(ctx);
  const acme = await makeOrg(ctx, api.tokens);
  const people = [
    { type: 'Personal', data: { firstName: 'Ana', lastName: 'García', email: 'ana@example.com' } },
    { type: 'Personal', data: { firstName: 'Andrés', lastName: 'Smith', email: 'andres@corp.io' } },
    { type: 'Business', data: { firstName: 'Bob', lastName: 'Anders', email: 'BOB@Example.com' } },
    { type: 'Personal', data: { firstName: 'Carla', lastName: 'Diaz', email: 'carla@example.com' } },
  ] as const;
  const ids: string[] = [];
  for (const p of people) {
    const res = await api.http.post(`/admin/v1/organizations/${acme.org.id}/identities`).set('Authorization', admin).send(p);
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return { ctx, ...api, acme, ids };
}

describe('GET /v1/identities', () => {
  it('lists by id with default limit and exact hasMore', async () => {
    const { http, acme, ids } = await setup();
    const all = await http.get('/v1/identities').set('Authorization', acme.auth);
    expect(all.status).toBe(200);
    expect(all.body.hasMore).toBe(false);
    expect(all.body.data.map((i: { id: string }) => i.id)).toEqual(ids);
    expect(all.body.data[0]).toEqual({
      id: ids[0],
      type: 'Personal',
      deleted: false,
      hasComplianceChecks: false,
      data: { firstName: 'Ana', lastName: 'García', email: 'ana@example.com' },
    });

    const page1 = await http.get('/v1/identities?limit=2').set('Authorization', acme.auth);
    expect(page1.body).toMatchObject({ hasMore: true });
    expect(page1.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(0, 2));
    const page2 = await http.get(`/v1/identities?limit=2&startingAfter=${ids[1]}`).set('Authorization', acme.auth);
    expect(page2.body.hasMore).toBe(false);
    expect(page2.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(2));
  });

  it('filters by name prefix on first, last or full name, case-insensitively', async () => {
    const { http, acme, ids } = await setup();
    const q = async (s: string) =>
      (await http.get(`/v1/identities?${s}`).set('Authorization', acme.auth)).body.data.map((i: { id: string }) => i.id);
    expect(await q('name=an')).toEqual([ids[0], ids[1], ids[2]]); // Ana, Andrés, Anders (last name)
    expect(await q('name=ANA%20G')).toEqual([ids[0]]);
    expect(await q('name=andr%C3%A9s%20s')).toEqual([ids[1]]);
    expect(await q('email=bob@ex')).toEqual([ids[2]]);
    expect(await q('email=ana')).toEqual([ids[0]]);
    expect(await q('type=Business')).toEqual([ids[2]]);
    expect(await q('name=an&type=Personal')).toEqual([ids[0], ids[1]]);
    expect(await q('name=zz')).toEqual([]);
  });

  it('answers the same bytes JSON.stringify would, with stored data spliced in as it is', async () => {
    const { ctx, http, acme } = await setup();
    const tricky = {
      firstName: 'Zoë "Q" \\ \u2028',
      lastName: '😀 Ñandú',
      email: 'zoe@example.com',
      address: { street1: 'Calle </script> 5', city: 'CDMX', country: 'MX' },
      documents: [{ type: 'Passport', idNumber: 'P1' }],
    };
    await createIdentity(ctx, acme.org.id, { type: 'Business', deleted: false, hasComplianceChecks: true, data: tricky });
    for (const q of ['', '?name=zo%C3%AB', '?limit=1']) {
      const res = await http.get(`/v1/identities${q}`).set('Authorization', acme.auth);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.text).toBe(JSON.stringify(JSON.parse(res.text)));
      // Counted in bytes, not characters: the data holds multi-byte characters.
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      expect(Buffer.byteLength(res.text)).toBeGreaterThan(res.text.length);
    }
    const head = await http.head('/v1/identities').set('Authorization', acme.auth);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    const res = await http.get('/v1/identities?name=zo%C3%AB').set('Authorization', acme.auth);
    expect(res.body).toEqual({
      hasMore: false,
      data: [{ id: expect.any(String), type: 'Business', deleted: false, hasComplianceChecks: true, data: tricky }],
    });
  });

  it.each(['0', '101', '5.5', 'ten', '-1', '', '1e1', '0x10', '%205'])('refuses limit=%s with a 400 naming the field', async (limit) => {
    const { http, acme } = await setup();
    const res = await http.get(`/v1/identities?limit=${limit}`).set('Authorization', acme.auth);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('query.limit');
  });

  it('accepts limit 1 and 100 and refuses a bad type', async () => {
    const { http, acme } = await setup();
    expect((await http.get('/v1/identities?limit=1').set('Authorization', acme.auth)).body.data).toHaveLength(1);
    expect((await http.get('/v1/identities?limit=100').set('Authorization', acme.auth)).body.data).toHaveLength(4);
    const bad = await http.get('/v1/identities?type=Robot').set('Authorization', acme.auth);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('query.type');
  });

  it("never shows another organization's identities", async () => {
    const { ctx, http, tokens } = await setup();
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const res = await http.get('/v1/identities').set('Authorization', other.auth);
    expect(res.body).toEqual({ hasMore: false, data: [] });
  });

  it('masks PII for a redacted token and keeps shape and types', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const org = await makeOrg(ctx, tokens, { piiAccess: 'redacted' });
    await createIdentity(ctx, org.org.id, {
      type: 'Personal',
      deleted: false,
      hasComplianceChecks: true,
      data: {
        firstName: 'Ana',
        lastName: 'García',
        middleName: 'Lu',
        taxId: 'ABC12345',
        dateOfBirth: '1990-02-03',
        email: 'ana.g@example.com',
        phone: '+5215512345678',
        nameInLocalScript: 'アナ',
        city: undefined,
        address: { street1: 'Calle 5', street2: 'Int 2', city: 'CDMX', country: 'MX', postalCode: '06700' },
        documents: [{ type: 'Passport', idNumber: 'P1234567', issuingCountry: 'MX', expiryDate: '2030-01-01' }],
        actingAsIntermediary: false,
        citizenship: 'MX',
        employerName: 'Acme Mexicana',
        activity: 'Dentist',
        accountPurposeOther: 'rent for Calle 5',
        placeOfBirthCity: 'Puebla',
        placeOfBirthCountry: 'MX',
        employmentStatus: 'Employed',
      } as Record<string, unknown>,
    });
    const res = await http.get('/v1/identities').set('Authorization', org.auth);
    expect(res.body.data[0].data).toEqual({
      firstName: 'A**',
      lastName: 'G*****',
      middleName: '**',
      taxId: '******45',
      dateOfBirth: '****-**-**',
      email: 'a****@example.com',
      phone: '************78',
      nameInLocalScript: '**',
      address: { street1: 'C******', street2: 'I****', city: 'CDMX', country: 'MX', postalCode: '*****' },
      documents: [{ type: 'Passport', idNumber: '******67', issuingCountry: 'MX', expiryDate: '2030-01-01' }],
      actingAsIntermediary: false,
      citizenship: 'MX',
      employerName: 'A************',
      activity: 'D******',
      accountPurposeOther: 'r***************',
      placeOfBirthCity: 'P*****',
      placeOfBirthCountry: 'MX',
      employmentStatus: 'Employed',
    });
    expect(res.body.data[0].hasComplianceChecks).toBe(true);
  });

  it('answers masked records that the published response schema accepts, like unmasked ones', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const all = await makeOrg(ctx, tokens);
    const client = await createApiClient(ctx, { orgId: all.org.id, piiAccess: 'redacted' });
    const redacted = await tokens.issue({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: 'redacted' });
    const data = {
      firstName: 'Ana',
      email: 'ana.g@example.com',
      phone: '+52 55 1234 5678',
      dateOfBirth: '1990-02-03',
      taxId: 'ABC12345',
      address: { postalCode: '06700' },
    };
    await createIdentity(ctx, all.org.id, { type: 'Personal', deleted: false, hasComplianceChecks: false, data });
    for (const auth of [all.auth, `Bearer ${redacted.accessToken}`]) {
      const res = await http.get('/v1/identities').set('Authorization', auth);
      expect(res.status).toBe(200);
      expect(identitySchema.safeParse(res.body.data[0]).error?.issues ?? []).toEqual([]);
    }
    // The published document states no format a mask breaks (an email pattern, a phone pattern).
    const published = (await http.get('/openapi.json')).body.paths['/v1/identities'].get.responses['200'].content['application/json']
      .schema;
    const fields = published.properties.data.items.properties.data.properties;
    for (const f of ['email', 'phone', 'dateOfBirth']) expect(fields[f]).not.toHaveProperty('pattern');
    expect(fields.email).not.toHaveProperty('format');
  });

  it('masks values of one or two characters entirely, keeping their length', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const org = await makeOrg(ctx, tokens, { piiAccess: 'redacted' });
    await createIdentity(ctx, org.org.id, {
      type: 'Personal',
      deleted: false,
      hasComplianceChecks: false,
      data: {
        firstName: 'A',
        lastName: 'Li',
        secondLastName: 'Ng',
        taxId: '12',
        email: 'a@x.com',
        address: { street1: 'K', postalCode: '1' },
        documents: [{ idNumber: '123' }],
      },
    });
    const res = await http.get('/v1/identities').set('Authorization', org.auth);
    expect(res.body.data[0].data).toEqual({
      firstName: '*',
      lastName: '**',
      secondLastName: '**',
      taxId: '**',
      email: '*@x.com',
      address: { street1: '*', postalCode: '*' },
      documents: [{ idNumber: '***' }],
    });
  });

  it.each([
    ['name=a', ['name']],
    ['email=a', ['email']],
    ['name=an&email=ana&type=Personal', ['name', 'email']],
  ])('refuses the PII prefix filters (%s) to a redacted token with a 403 naming the parameter', async (q, params) => {
    const { ctx, http, acme } = await setup();
    const client = await createApiClient(ctx, { orgId: acme.org.id, piiAccess: 'redacted' });
    const issued = await makeApi(ctx).tokens.issue({ clientId: client.id, clientSecret: client.clientSecret, piiAccess: 'redacted' });
    const res = await http.get(`/v1/identities?${q}`).set('Authorization', `Bearer ${issued.accessToken}`);
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 403, type: 'urn:borderd:problem:pii_filter_forbidden' });
    for (const p of params) expect(res.body.detail).toContain(p);
    expect(res.body.detail).toContain('piiAccess "all"');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(params.map((p) => `query.${p}`));
    expect(JSON.stringify(res.body)).not.toMatch(/Ana|García|ana@example/);
    // Without those filters the same token lists (masked), and an all token may filter.
    const typed = await http.get('/v1/identities?type=Business').set('Authorization', `Bearer ${issued.accessToken}`);
    expect(typed.status).toBe(200);
    expect(typed.body.data).toHaveLength(1);
    expect((await http.get(`/v1/identities?${q}`).set('Authorization', acme.auth)).status).toBe(200);
  });
});

describe('identity creation and import', () => {
  it('refuses bad identity data naming the field', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const { org } = await makeOrg(ctx, tokens);
    const res = await http
      .post(`/admin/v1/organizations/${org.id}/identities`)
      .set('Authorization', admin)
      .send({ type: 'Personal', data: { dateOfBirth: '1990-02-30', citizenship: 'mex', nope: 1 } });
    expect(res.status).toBe(400);
    const paths = res.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['body.data.dateOfBirth', 'body.data.citizenship', 'body.data']));
    // Shaped like a country code, and not one: each field that holds a code is checked against the list.
    const codes = await http
      .post(`/admin/v1/organizations/${org.id}/identities`)
      .set('Authorization', admin)
      .send({
        type: 'Personal',
        data: {
          citizenship: 'QQ',
          nationalities: ['MX', 'UK'],
          placeOfBirthCountry: 'ZZ',
          address: { country: 'XX' },
          documents: [{ issuingCountry: 'AA' }],
        },
      });
    expect(codes.status).toBe(400);
    expect(codes.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'body.data.address.country',
      'body.data.citizenship',
      'body.data.documents.0.issuingCountry',
      'body.data.nationalities.1',
      'body.data.placeOfBirthCountry',
    ]);
  });

  it('imports all lines or none, naming each bad line', async () => {
    const ctx = await makeContext();
    const org = await createOrganization(ctx, 'X');
    const good = JSON.stringify({ type: 'Personal', data: { firstName: 'A' } });
    await expect(importIdentities(ctx, org.id, [good, '{bad json', '', JSON.stringify({ type: 'Robot' })])).rejects.toThrow(/2 error/);
    try {
      await importIdentities(ctx, org.id, [good, '{bad json', '', JSON.stringify({ type: 'Robot' })]);
    } catch (err) {
      const paths = (err as { extra: { errors: { path: string }[] } }).extra.errors.map((e) => e.path);
      expect(paths).toEqual(['line 2', 'line 4.type']);
    }
    expect(await listIdentities(ctx.db, org.id, { limit: 10 })).toEqual([]);
    expect((await importIdentities(ctx, org.id, [good, '', good])).imported).toBe(2);
    expect(await listIdentities(ctx.db, org.id, { limit: 10 })).toHaveLength(2);
    // An empty file (or one of blank lines) is refused, as the transaction import refuses one.
    for (const lines of [[], ['', '  ']]) await expect(importIdentities(ctx, org.id, lines)).rejects.toThrow(/1 error/);
  });
});

describe('name prefix over many identities', () => {
  it('pages a dense prefix (more than denseMatchesFor(limit) matches) by id like a rare one', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const acme = await makeOrg(ctx, tokens);
    const lines = Array.from({ length: 2400 }, (_, i) =>
      JSON.stringify({ type: 'Personal', data: { firstName: i % 2 ? `Zed${i}` : `Amy${i}`, lastName: i % 3 ? 'Stone' : 'Zorro' } }),
    );
    const { ids } = await importIdentities(ctx, acme.org.id, lines);
    const expected = ids.filter((_, i) => i % 2 === 1 || i % 3 === 0);
    expect(await namePlan(ctx.db, acme.org.id, { name: 'z', limit: 100 })).toBe('walk');
    expect(await namePlan(ctx.db, acme.org.id, { name: 'zed1199', limit: 100 })).toBe('collect');
    const page = await http.get('/v1/identities?name=z&limit=100').set('Authorization', acme.auth);
    expect(page.body.hasMore).toBe(true);
    expect(page.body.data.map((i: { id: string }) => i.id)).toEqual(expected.slice(0, 100));
    const last = await http
      .get(`/v1/identities?name=Z&limit=100&startingAfter=${expected[expected.length - 2]}`)
      .set('Authorization', acme.auth);
    expect(last.body).toMatchObject({ hasMore: false });
    expect(last.body.data.map((i: { id: string }) => i.id)).toEqual([expected[expected.length - 1]]);
    const rare = await http.get('/v1/identities?name=zed1199').set('Authorization', acme.auth);
    expect(rare.body.data.map((i: { id: string }) => i.id)).toEqual([ids[1199]]);
    // The same prefix with a smaller page is dense sooner: the walk meets limit + 1 matches earlier.
    const few = (
      await importIdentities(
        ctx,
        acme.org.id,
        Array.from({ length: 600 }, (_, i) => JSON.stringify({ type: 'Personal', data: { firstName: `Quinn${i}` } })),
      )
    ).ids;
    expect(await namePlan(ctx.db, acme.org.id, { name: 'quinn', limit: 10 })).toBe('walk');
    expect(await namePlan(ctx.db, acme.org.id, { name: 'quinn', limit: 100 })).toBe('collect');
    for (const limit of [10, 100]) {
      const page = await http.get(`/v1/identities?name=QUINN&limit=${limit}`).set('Authorization', acme.auth);
      expect(page.body.data.map((i: { id: string }) => i.id)).toEqual(few.slice(0, limit));
    }
  });

  it('lists the same rows when a prefix became dense after its plan was chosen (the density is cached)', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const acme = await makeOrg(ctx, tokens);
    const before = (
      await importIdentities(ctx, acme.org.id, [JSON.stringify({ type: 'Personal', data: { firstName: 'Zoe', lastName: 'Early' } })])
    ).ids;
    const sparse = await http.get('/v1/identities?name=zo&limit=5').set('Authorization', acme.auth);
    expect(sparse.body.data.map((i: { id: string }) => i.id)).toEqual(before);
    // Now 1,500 more matches: far past denseMatchesFor(5), while "zo" is still remembered as rare.
    const lines = Array.from({ length: 1500 }, (_, i) =>
      JSON.stringify({ type: 'Personal', data: { firstName: `Zoltan${i}`, lastName: 'Late' } }),
    );
    const after = (await importIdentities(ctx, acme.org.id, lines)).ids;
    // Still remembered as rare, though a fresh count would say dense.
    expect(await namePlan(ctx.db, acme.org.id, { name: 'zo', limit: 5 })).toBe('collect');
    const page = await http.get('/v1/identities?name=zo&limit=5').set('Authorization', acme.auth);
    expect(page.body).toMatchObject({ hasMore: true });
    expect(page.body.data.map((i: { id: string }) => i.id)).toEqual([...before, ...after].sort().slice(0, 5));
  });
});

describe('the name filter against its definition', () => {
  // Prefix of firstName, lastName or "firstName lastName", case-insensitively; the full name only
  // when both names are there. Names with spaces at either end and single names are the cases where
  // leaving the full-name column out of a prefix without a space (store/identities.ts) could go wrong.
  const tricky = [
    { firstName: ' Ana', lastName: 'García' },
    { firstName: 'Ana ', lastName: 'Ruiz' },
    { firstName: 'Mary Ann', lastName: 'Lee' },
    { firstName: 'Ann' },
    { lastName: 'Annan' },
    { lastName: ' Anne' },
    { firstName: 'Bo', lastName: 'Ann Marie' },
    { firstName: 'ANNA', lastName: 'Ng' },
    {},
  ];
  const prefixes = [
    'an',
    'ann',
    ' an',
    'ana',
    'ana ',
    'ana  r',
    'ana g',
    ' ana g',
    'mary a',
    'mary ann l',
    'bo ann',
    'bo ann m',
    'ann ',
    'anna ng',
    'ng',
    'z',
  ];
  const matches = (d: { firstName?: string; lastName?: string }, p: string): boolean => {
    const first = (d.firstName ?? '').toLowerCase();
    const last = (d.lastName ?? '').toLowerCase();
    const q = p.toLowerCase();
    return first.startsWith(q) || last.startsWith(q) || (first !== '' && last !== '' && `${first} ${last}`.startsWith(q));
  };

  it.each([
    ['a rare prefix (index range scans)', 0],
    ['a dense prefix (the walk in id order)', 2000],
  ])('lists exactly the defined matches for %s', async (_label, filler) => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const acme = await makeOrg(ctx, tokens);
    // The filler makes "an", "ann" and "ann " dense (more than denseMatchesFor(limit) matches each).
    const people = [...tricky, ...Array.from({ length: filler }, (_, i) => ({ firstName: `Anxx${i}`, lastName: `Ann ${i}` }))];
    const { ids } = await importIdentities(
      ctx,
      acme.org.id,
      people.map((data) => JSON.stringify({ type: 'Personal', data })),
    );
    for (const p of ['an', 'ann', 'ann '])
      expect(await namePlan(ctx.db, acme.org.id, { name: p, limit: 100 })).toBe(filler ? 'walk' : 'collect');
    for (const p of prefixes) {
      const expected = ids.filter((_, i) => matches(people[i]!, p)).slice(0, 100);
      const res = await http.get(`/v1/identities?name=${encodeURIComponent(p)}&limit=100`).set('Authorization', acme.auth);
      expect(res.status).toBe(200);
      expect({ p, ids: res.body.data.map((i: { id: string }) => i.id) }).toEqual({ p, ids: expected });
    }
  });
});

describe('PATCH /admin/v1/organizations/{orgId}/identities/{id}', () => {
  it('sets the compliance and deleted flags, scoped to the organization', async () => {
    const { ctx, http, tokens, acme, ids } = await setup();
    const res = await http
      .patch(`/admin/v1/organizations/${acme.org.id}/identities/${ids[0]}`)
      .set('Authorization', admin)
      .send({ hasComplianceChecks: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ids[0], hasComplianceChecks: true, deleted: false });
    const del = await http
      .patch(`/admin/v1/organizations/${acme.org.id}/identities/${ids[0]}`)
      .set('Authorization', admin)
      .send({ deleted: true });
    expect(del.body).toMatchObject({ hasComplianceChecks: true, deleted: true });
    const listed = await http.get('/v1/identities?limit=1').set('Authorization', acme.auth);
    expect(listed.body.data[0]).toMatchObject({ id: ids[0], deleted: true, hasComplianceChecks: true });
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    expect(
      (
        await http
          .patch(`/admin/v1/organizations/${other.org.id}/identities/${ids[0]}`)
          .set('Authorization', admin)
          .send({ deleted: false })
      ).status,
    ).toBe(404);
    const empty = await http.patch(`/admin/v1/organizations/${acme.org.id}/identities/${ids[0]}`).set('Authorization', admin).send({});
    expect(empty.status).toBe(400);
  });
});

describe('identity PII in logs', () => {
  it('never writes names or emails (from filters or records) to a log line', async () => {
    const { ctx, http, acme } = await setup();
    await http.get('/v1/identities?name=Garc%C3%ADa&email=andres@corp').set('Authorization', acme.auth);
    await http
      .post(`/admin/v1/organizations/${acme.org.id}/identities`)
      .set('Authorization', admin)
      .send({ type: 'Personal', data: { firstName: 'Wilhelmina', email: 'wil@secret.example' } });
    const text = ctx.logs.text();
    expect(ctx.logs.lines.length).toBeGreaterThan(4);
    for (const pii of ['García', 'andres@corp', 'Wilhelmina', 'wil@secret.example', 'ana@example.com']) expect(text).not.toContain(pii);
  });
});

describe('identity lists filtered by email', () => {
  // 1,200 emails under "j" (dense for a page of 10 or 100), 30 under "zed" (rare), names mixed.
  async function seed() {
    const ctx = await makeContext();
    const org = (await createOrganization(ctx, 'E')).id;
    const lines = Array.from({ length: 1_230 }, (_, i) =>
      JSON.stringify({
        type: i % 3 === 0 ? 'Business' : 'Personal',
        data: { firstName: i % 2 ? 'Ana' : 'Bo', lastName: 'Ruiz', email: i < 1_200 ? `j${i}@example.com` : `zed${i}@example.com` },
      }),
    );
    await importIdentities(ctx, org, lines);
    // Each identity's lowercase email and first name, the definition every filter is checked against.
    const all = (await listIdentities(ctx.db, org, { limit: 10_000 })).map(({ id, type, dataJson }) => {
      const data = JSON.parse(dataJson) as { email: string; firstName: string };
      return { id, type, email: data.email.toLowerCase(), first: data.firstName.toLowerCase() };
    });
    return { ctx, org, all };
  }
  const FILTERS = [
    { email: 'j' },
    { email: 'j1' },
    { email: 'zed' },
    { email: 'j', name: 'ana' },
    { email: 'zed', name: 'bo' },
    { email: 'j', type: 'Business' as const },
  ];

  it('pages every filter exactly as its definition says, cursor after cursor', async () => {
    const { ctx, org, all } = await seed();
    for (const f of FILTERS) {
      for (const limit of [10, 100]) {
        const want = all
          .filter((r) => r.email.startsWith(f.email) && (!f.name || r.first.startsWith(f.name)) && (!f.type || r.type === f.type))
          .map((r) => r.id);
        const got: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await listIdentities(ctx.db, org, { ...f, limit, startingAfter: after });
          got.push(...page.slice(0, limit).map((r) => r.id));
          if (page.length <= limit) break;
          after = page[limit - 1]!.id;
        }
        expect({ f, limit, got }).toEqual({ f, limit, got: want });
      }
    }
  });

  // SQLite's query plans (test/support/query-plans.ts): PostgreSQL plans from its own statistics.
  it.skipIf(onPostgres)(
    'never sorts every match of a dense email prefix for a page: it walks ids in order; a rare one sorts only its matches',
    async () => {
      const { ctx, org } = await seed();
      const plans = await plansOf(
        ctx.db,
        async () => {
          for (const f of FILTERS)
            for (const startingAfter of [undefined, 'idn_0']) await listIdentities(ctx.db, org, { ...f, limit: 10, startingAfter });
        },
        /FROM identities .*ORDER BY id LIMIT/s,
      );
      expect(plans.length).toBeGreaterThanOrEqual(3);
      for (const { sql, plan } of plans) {
        // Only the rare-prefix statements (an id IN (…) list of the matches) may sort, and then only those matches.
        if (!/id IN \(SELECT/.test(sql)) expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringMatching(/TEMP B-TREE/) });
        expect(plan).not.toMatch(/identities_org_email \(org_id=\? AND email_lc>\? AND email_lc<\?\) \| USE TEMP B-TREE/);
      }
    },
  );
});

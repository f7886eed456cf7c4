/**
 * A keyed POST runs its handler inside the transaction that keeps its answer (on SQLite the group
 * commit's, which every API write shares), so what a write must await first is made by the route's
 * `prepare`, before that transaction: the RSA key pairs of a first webhook and of a key rotation.
 * Every key pair the process makes is watched here, with the transactions open when it starts.
 */
import type { KeyObject } from 'node:crypto';
import request from 'supertest';
import { z } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { RouteModule } from '../../src/api/route.js';
import { routeModules } from '../../src/api/routes/index.js';
import type { Db } from '../../src/db/database.js';
import { createOrganization } from '../../src/services/organizations.js';
import { TokenService } from '../../src/services/tokens.js';
import { ADMIN_TOKEN, makeApi, makeContext, makeOrg, type TestContext } from '../support/context.js';

/** The transactions open (on the test's database) as each key pair was asked for. */
const openAtKeyPair = vi.hoisted(() => ({ open: 0, seen: [] as number[] }));

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const { promisify: custom } = await import('node:util');
  const watched = Object.assign(
    (...args: Parameters<typeof actual.generateKeyPair>) => {
      openAtKeyPair.seen.push(openAtKeyPair.open);
      return (actual.generateKeyPair as (...a: unknown[]) => void)(...args);
    },
    {
      [custom.custom]: (type: string, options: object) => {
        openAtKeyPair.seen.push(openAtKeyPair.open);
        return new Promise((resolve, reject) =>
          (actual.generateKeyPair as (...a: unknown[]) => void)(
            type,
            options,
            (err: Error | null, publicKey: KeyObject, privateKey: KeyObject) => (err ? reject(err) : resolve({ publicKey, privateKey })),
          ),
        );
      },
    },
  );
  return { ...actual, generateKeyPair: watched, default: { ...actual, generateKeyPair: watched } };
});

const HOOKS = '/v1/notifications/webhooks/settings';
const admin = `Bearer ${ADMIN_TOKEN}`;

/** Counts the write transactions open on the context's database, as the API's commit opens them. */
function countOpen(ctx: TestContext): void {
  const db = ctx.db;
  const counted =
    <T>(fn: (tx: Db) => Promise<T>) =>
    async (tx: Db): Promise<T> => {
      openAtKeyPair.open++;
      try {
        return await fn(tx);
      } finally {
        openAtKeyPair.open--;
      }
    };
  const transaction = db.transaction.bind(db);
  const tryTransaction = db.tryTransaction.bind(db);
  db.transaction = (fn, opts) => transaction(counted(fn), opts);
  db.tryTransaction = (fn, opts) => tryTransaction(counted(fn), opts);
}

describe('a keyed POST makes what it awaits before its transaction', () => {
  it('makes the key pair of a first webhook and of a rotation outside any transaction, and none for a replay', async () => {
    const ctx = await makeContext();
    const { http, tokens } = makeApi(ctx);
    const org = await makeOrg(ctx, tokens);
    countOpen(ctx);
    openAtKeyPair.seen.length = 0;
    const create = () =>
      http.post(HOOKS).set('authorization', org.auth).set('idempotency-key', 'first-hook').send({ url: 'http://127.0.0.1:9/a' });
    const created = await create();
    expect(created.status).toBe(201);
    const key = await http.get(`${HOOKS}/public-key`).set('authorization', org.auth);
    expect(key.status).toBe(200);
    const rotate = () => http.post(`${HOOKS}/public-key`).set('authorization', org.auth).set('idempotency-key', 'rotate-1');
    const rotated = await rotate();
    expect(rotated.status).toBe(201);
    expect(rotated.body.keyId).not.toBe(key.body.keyId);
    // One pair each, both made while no transaction was open.
    expect(openAtKeyPair.seen).toEqual([0, 0]);
    // The replays make none.
    expect((await create()).headers['idempotent-replayed']).toBe('true');
    expect((await rotate()).body).toEqual(rotated.body);
    expect(openAtKeyPair.seen).toEqual([0, 0]);
    // The rotated key is the current one.
    expect((await http.get(`${HOOKS}/public-key`).set('authorization', org.auth)).body.keyId).toBe(rotated.body.keyId);
  });

  it("runs a route's prepare outside the transaction, while other writes commit, and hands its result to the handler", async () => {
    const ctx = await makeContext();
    const orgId = (await createOrganization(ctx, 'Acme')).id;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const preparing = new Promise<void>((r) => (entered = r));
    let prepared = 0;
    const routes: RouteModule = (api) =>
      api.route({
        method: 'post',
        path: '/admin/v1/prepared',
        summary: 'answers what its prepare made',
        auth: 'admin',
        body: z.strictObject({ n: z.number() }),
        responses: { 201: { description: 'made', schema: z.object({ made: z.number() }) } },
        prepare: async ({ body }) => {
          prepared++;
          entered();
          await held;
          return body.n * 2;
        },
        handler: async ({ prepared: made }) => ({ status: 201, body: { made } }),
      });
    const app = request(createApp({ ctx, tokens: new TokenService(ctx), adminToken: ADMIN_TOKEN }, [...routeModules, routes]).app);
    const send = () => app.post('/admin/v1/prepared').set('authorization', admin).set('idempotency-key', 'p-1').send({ n: 21 });
    const first = send().then((r) => r);
    await preparing;
    // Another keyed write commits while the prepare is held: no transaction waits on it.
    const other = await app
      .post('/admin/v1/events')
      .set('authorization', admin)
      .set('idempotency-key', 'event-1')
      .send({ orgId, type: 'Transaction_Created', data: { note: 'meanwhile' } });
    expect(other.status).toBe(201);
    release();
    const done = await first;
    expect(done.status).toBe(201);
    expect(done.body).toEqual({ made: 42 });
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual({ made: 42 });
    expect(prepared).toBe(1);
  });
});

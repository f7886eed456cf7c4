/**
 * What the dispatcher's tests share: a context with an organization, one webhook on a local
 * receiver and a dispatcher; signature checks of everything a receiver got (run after each test);
 * endpoints that hold their answers; and a started dispatcher for the length of a test.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, vi } from 'vitest';
import type { Db } from '../../../src/db/database.js';
import { Dispatcher } from '../../../src/delivery/dispatch/dispatcher.js';
import { jobOf as jobOfParts, type Job } from '../../../src/delivery/dispatch/job.js';
import { createTransaction } from '../../../src/services/transactions.js';
import { getDelivery } from '../../../src/store/deliveries.js';
import { claimDue, deliveryLease, dueWebhooks, type ClaimedDelivery, type DueWebhook } from '../../../src/store/delivery-claims.js';
import { listAttempts } from '../../../src/store/delivery-attempts.js';
import { publicKeys } from '../../../src/store/webhook-keys.js';
import { makeApi, makeContext, makeOrg, tempDir, type TestContext } from '../../support/context.js';
import { signatureVerifies, startReceiver, type Received } from '../receiver.js';

/** A short retry schedule (three attempts) with ±20% jitter. */
export const SHORT = { 'delivery.retryScheduleSeconds': [0, 5, 60], 'delivery.jitter': 0.2 };

/** After each test: every request any receiver of the test got is checked against its database's keys. */
const signatureChecks: (() => Promise<void>)[] = [];
afterEach(async () => {
  const checks = signatureChecks.splice(0);
  for (const check of checks) await check();
});

/** Checks, after the test, that every request `receiver` got is signed with a key of `ctx`'s database. */
export function checkSignaturesAfter(ctx: TestContext, receiver: { received: Received[] }): void {
  signatureChecks.push(() => expectAllSigned(ctx, receiver.received));
}

export async function setup(overrides: Record<string, unknown> = {}) {
  const ctx = await makeContext(overrides);
  const api = makeApi(ctx);
  const org = await makeOrg(ctx, api.tokens);
  const receiver = await startReceiver();
  signatureChecks.push(async () => {
    if (ctx.db.open && receiver.received.length > 0) await expectAllSigned(ctx, receiver.received);
  });
  const created = await api.http.post('/v1/notifications/webhooks/settings').set('authorization', org.auth).send({ url: receiver.url });
  expect(created.status).toBe(201);
  // random 0.5 = no jitter, so delays are exact.
  const dispatcher = new Dispatcher(ctx, { random: () => 0.5 });
  const publicPem = async () =>
    (await api.http.get('/v1/notifications/webhooks/settings/public-key').set('authorization', org.auth)).body.publicKey as string;
  return { ctx, ...api, org, receiver, webhookId: created.body.id as string, dispatcher, publicPem };
}

export function verifiesWithOpenssl(r: Received, publicPem: string): boolean {
  const dir = tempDir('borderd-openssl-');
  writeFileSync(join(dir, 'pub.pem'), publicPem);
  writeFileSync(join(dir, 'body.bin'), r.body);
  writeFileSync(join(dir, 'sig.bin'), Buffer.from(String(r.headers['x-signature']), 'base64'));
  try {
    const out = execFileSync(
      'openssl',
      ['dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sig.bin'), join(dir, 'body.bin')],
      { stdio: 'pipe' },
    );
    return out.toString().includes('Verified OK');
  } catch {
    return false;
  }
}

export const verifiesWithNode = (r: Received, publicPem: string): boolean => signatureVerifies(r, publicPem);

/** How many distinct events a receiver got: a retry or a second send of one counts once. */
export const distinctEvents = (received: readonly Received[]): number => new Set(received.map((r) => r.headers['x-event-id'])).size;

/**
 * Every request the receiver got must carry a signature that node:crypto verifies over the exact
 * body, with the public key its x-signature-key-id names (retries and replays included).
 */
export async function expectAllSigned(ctx: TestContext, received: Received[]): Promise<void> {
  const keys = new Map((await publicKeys(ctx.db)).map((k) => [k.id, k.publicPem]));
  expect(received.length).toBeGreaterThan(0);
  for (const r of received) {
    const pem = keys.get(String(r.headers['x-signature-key-id']));
    expect(pem, `key ${String(r.headers['x-signature-key-id'])}`).toBeDefined();
    expect(
      verifiesWithNode(r, pem!),
      `signature of ${String(r.headers['x-event-id'])} attempt ${String(r.headers['x-delivery-attempt'])}`,
    ).toBe(true);
  }
}

/** Not an attempt (its outcome is unknown), still pending, and nobody's lease: the next process may send it at once. */
export async function expectGivenBackUnattempted(ctx: TestContext, deliveryId: string): Promise<void> {
  expect(await deliveryLease(ctx.db, deliveryId)).toEqual({ claimedBy: null, leaseUntil: null });
  expect(await getDelivery(ctx.db, deliveryId)).toMatchObject({ state: 'pending', attempts: 0 });
  expect(await listAttempts(ctx.db, deliveryId)).toEqual([]);
}

/** A receiver that answers at once, registered as a webhook with `auth`'s token; what it gets is checked for signatures after the test. */
export async function answeringWebhook(ctx: TestContext, http: ReturnType<typeof makeApi>['http'], auth: string) {
  const receiver = await startReceiver();
  checkSignaturesAfter(ctx, receiver);
  await http.post('/v1/notifications/webhooks/settings').set('authorization', auth).send({ url: receiver.url });
  return receiver;
}

/** Runs `fn` while `worker`, started, delivers; then lets the held answers go (`release`) and stops it. */
export async function whileRunning(worker: Dispatcher, release: () => void, fn: () => Promise<void>): Promise<void> {
  worker.start();
  try {
    await fn();
  } finally {
    release();
    await worker.stop();
  }
}

/** Runs `fn` while a started dispatcher of its own delivers; then lets the held answers go and stops it. */
export async function whileDispatching(ctx: TestContext, release: () => void, fn: (worker: Dispatcher) => Promise<void>): Promise<void> {
  const worker = new Dispatcher(ctx, { random: () => 0.5 });
  await whileRunning(worker, release, () => fn(worker));
}

/** Holds every answer of `receiver` (a stalled endpoint) until the returned function is called. */
export function holdAnswers(receiver: Awaited<ReturnType<typeof startReceiver>>): () => void {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  receiver.setResponder((_r, res) => void held.then(() => res.end('ok')));
  return release;
}

export const newTx = (ctx: TestContext, orgId: string) =>
  createTransaction(ctx, { orgId, type: 'Deposit', amount: '125.50', currency: 'USD' });

/** A claimed row as a job, with the given body and no key yet; what it is signed with is up to the test. */
export const jobOf = (row: ClaimedDelivery, webhook: DueWebhook, body = '{}'): Job =>
  jobOfParts(row, webhook, {
    eventType: 'Transaction_Created',
    body,
    traceContext: null,
    keyId: null,
    signature: Promise.resolve(''),
    secretKeys: [],
  });

/** `n` due rows of the setup's webhook, claimed now by `owner` for a minute, and the jobs that would send them. */
export async function claimedJobs(n: number, owner: string, overrides: Record<string, unknown> = {}) {
  const s = await setup(overrides);
  for (let i = 0; i < n; i++) await newTx(s.ctx, s.org.org.id);
  const now = s.ctx.clock.now();
  const [webhook] = await dueWebhooks(s.ctx.db, now);
  const rows = await claimDue(s.ctx.db, webhook!.id, owner, now, now + 60_000, n);
  expect(rows).toHaveLength(n);
  return { ...s, webhook: webhook!, rows, jobs: rows.map((r) => jobOf(r, webhook!)) };
}

/**
 * Runs passes of `dispatcher` until `check` holds. On PostgreSQL an ordered webhook's rows are
 * claimed once every transaction older than theirs has ended, anywhere on the server (other tests'
 * too), so a pass may find them not claimable yet: the next one does.
 */
export async function passesUntil(dispatcher: Dispatcher, check: () => unknown): Promise<void> {
  await vi.waitFor(
    async () => {
      await dispatcher.runOnce();
      await check();
    },
    { timeout: 10_000, interval: 20 },
  );
}

/** `db`, and every transaction opened through it, counting each statement they run with its SQL. */
export function counted(db: Db, statements: string[]): Db {
  const STATEMENTS = new Set(['all', 'get', 'value', 'column', 'run', 'exec']);
  const OPENERS = new Set(['transaction', 'tryTransaction', 'snapshot', 'savepoint']);
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      const fn = value as (...a: unknown[]) => unknown;
      if (STATEMENTS.has(String(prop)))
        return (sql: unknown, ...rest: unknown[]) => {
          statements.push(typeof sql === 'string' ? sql : JSON.stringify(sql));
          return fn.call(target, sql, ...rest);
        };
      if (OPENERS.has(String(prop)))
        return (body: (tx: Db) => Promise<unknown>, ...rest: unknown[]) =>
          fn.call(target, (tx: Db) => body(counted(tx, statements)), ...rest);
      return fn.bind(target);
    },
  });
}

/**
 * A backlog of `n` events to one webhook of two send slots, no poll tick within the test, and a
 * dispatcher whose database counts every statement it runs (`statements`): what a drain reads and
 * writes per delivery, counted.
 */
export async function countedBacklog(n: number) {
  const s = await setup({ 'delivery.perEndpointConcurrency': 2, 'delivery.pollIntervalMs': 3_600_000 });
  for (let i = 0; i < n; i++) await newTx(s.ctx, s.org.org.id);
  const statements: string[] = [];
  const dispatcher = new Dispatcher({ ...s.ctx, db: counted(s.ctx.db, statements) as typeof s.ctx.db }, { random: () => 0.5 });
  return { ...s, dispatcher, statements };
}

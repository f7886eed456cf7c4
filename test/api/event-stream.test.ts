import { createServer, get as httpGet, type ClientRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createContext } from '../../src/create-context.js';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { writeEvent } from '../../src/delivery/events.js';
import { enqueueEvent } from '../../src/delivery/enqueue.js';
import { withTransaction } from '../../src/db/database.js';
import { createGroupCommit } from '../../src/db/group-commit.js';
import { createLogger } from '../../src/logging/logger.js';
import { emitEvent } from '../../src/services/outbox.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { newId } from '../../src/domain/ids.js';
import { insertEvent, listEventsAfter, replayStartAt, streamPositionAfter } from '../../src/store/events.js';
import { rotateSigningKey, Signer } from '../../src/delivery/signing-keys.js';
import { signaturesOf, storeSignature } from '../../src/store/event-signatures.js';
import { createOrganization, revokeClient } from '../../src/services/organizations.js';
import { verifySignature } from '../../src/verify/signature.js';
import type { TransactionEventData } from '../../src/verify/events.js';
import { LogCapture, makeApi, makeContext, makeOrg, type TestContext } from '../support/context.js';
import { startReceiver } from '../delivery/receiver.js';
import { onPostgres } from '../support/postgres.js';
import { untilReadable } from '../support/watermark.js';
import { plansOf } from '../support/query-plans.js';

const data: TransactionEventData = {
  id: 'txn_1',
  type: 'Deposit',
  status: 'Completed',
  previousStatus: 'Pending',
  amount: '5.00',
  currency: 'USDC',
  network: 'ETHEREUM',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const servers: Server[] = [];
const aborts: AbortController[] = [];
/** Contexts of other processes, closed once their servers are. */
const others: TestContext[] = [];
afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  for (const server of servers.splice(0)) await new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
  for (const other of others.splice(0)) await other.db.close();
});

async function serve(ctx: TestContext) {
  const api = makeApi(ctx);
  const server = createServer(api.app);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { ...api, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/notifications/events/stream` };
}

/** A second daemon process on the same database file: its own connection, and its own memory of signatures. */
async function anotherProcess(ctx: TestContext): Promise<TestContext> {
  const logs = new LogCapture();
  const other = Object.assign(
    await createContext(ctx.config, { clock: ctx.clock, log: createLogger({ level: 'debug', pretty: 'never', destination: logs }) }),
    { clock: ctx.clock, logs },
  );
  others.push(other);
  return other;
}

/** What event_signatures holds for these events, by event id. */
async function storedSignatures(ctx: TestContext, eventIds: string[]): Promise<Map<string, { keyId: string; signature: string }>> {
  return new Map((await signaturesOf(ctx.db, eventIds)).map((r) => [r.eventId, { keyId: r.keyId, signature: r.signature }]));
}

/** A fresh organization's stream, open and past its first two messages, and another process on the same database. */
async function streamBesideAnotherProcess(pollIntervalMs: number) {
  const ctx = await makeContext({ 'eventStream.pollIntervalMs': pollIntervalMs });
  const { tokens, url } = await serve(ctx);
  const { org, auth } = await makeOrg(ctx, tokens);
  const stream = await open(url, auth);
  await stream.next(2);
  return { ctx, org, stream, other: await anotherProcess(ctx) };
}

/** A gate one side opens and the other waits at: `passed` resolves once `open()` was called. */
function gate(): { open: () => void; passed: Promise<void> } {
  let open!: () => void;
  const passed = new Promise<void>((r) => (open = r));
  return { open, passed };
}

/** A daemon with a 50 ms heartbeat and one organization's stream, open and past its first message. */
async function heartbeatStream() {
  const ctx = await makeContext({ 'eventStream.heartbeatMs': 50 });
  const { tokens, url } = await serve(ctx);
  const org = await makeOrg(ctx, tokens);
  const stream = await open(url, org.auth);
  // ready, then signing-key: the organization's first key pair (made off the main thread) is stored by then.
  await stream.next(2);
  return { ctx, url, ...org, stream };
}

/** Opens the stream and collects messages; next(n) resolves once n messages arrived. */
async function open(url: string, auth: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  aborts.push(abort);
  const res = await fetch(url, { headers: { authorization: auth, ...headers }, signal: abort.signal });
  const messages: EventSourceMessage[] = [];
  const comments: string[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let ended!: () => void;
  const endedPromise = new Promise<void>((r) => (ended = r));
  const parser = createParser({
    onEvent: (m) => {
      messages.push(m);
      for (const w of waiters.filter((w) => messages.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    },
    onComment: (c) => comments.push(c),
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // aborted at the end of the test
    }
    ended();
  })();
  return {
    res,
    messages,
    comments,
    next: (n: number) =>
      new Promise<EventSourceMessage[]>((resolve) =>
        messages.length >= n ? resolve(messages) : waiters.push({ n, resolve: () => resolve(messages) }),
      ),
    close: () => abort.abort(),
    /** Resolves when the server ended the stream. */
    ended: endedPromise,
  };
}

const SINCE_ALL = '2000-01-01T00:00:00.000Z';
const payloads = (messages: EventSourceMessage[]) => messages.filter((m) => m.event !== 'ready' && m.event !== 'signing-key');

async function emit(ctx: TestContext, orgId: string) {
  const stored = await writeEvent(ctx.db, ctx.clock.now(), orgId, 'Transaction_Updated', data);
  ctx.signals.outbox.emit();
  return stored;
}

describe('GET /v1/notifications/events/stream', () => {
  it('announces its start and the key, then sends each event with its exact body and a valid signature', async () => {
    const ctx = await makeContext();
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const first = await emit(ctx, org.id);
    const stream = await open(`${url}?since=${SINCE_ALL}`, auth);
    expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const [ready, key, ev] = await stream.next(3);
    expect(ready!.event).toBe('ready');
    expect(JSON.parse(ready!.data)).toMatchObject({ from: 'since' });
    expect(key!.event).toBe('signing-key');
    const { publicKey, keyId } = JSON.parse(key!.data) as { publicKey: string; keyId: string };
    expect(ev).toMatchObject({ id: first.event.id, event: 'Transaction_Updated' });
    const payload = JSON.parse(ev!.data) as { body: string; signature: string; keyId: string };
    expect(payload.body).toBe(first.body);
    expect(payload.keyId).toBe(keyId);
    expect(verifySignature(payload.body, payload.signature, publicKey)).toBe(true);
    // A new event wakes the stream.
    const second = await emit(ctx, org.id);
    const all = await stream.next(4);
    expect(all[3]!.id).toBe(second.event.id);
  });

  it('starts now when no position is given: history is not sent, new events are, and ready carries the position', async () => {
    const ctx = await makeContext();
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const old1 = await emit(ctx, org.id);
    const old2 = await emit(ctx, org.id);
    await untilReadable(ctx, org.id, old2.event.id);
    const stream = await open(url, auth);
    const [ready, key] = await stream.next(2);
    expect(ready).toMatchObject({ event: 'ready', id: old2.event.id });
    expect(JSON.parse(ready!.data)).toEqual({ from: 'now', after: old2.event.id });
    expect(key!.event).toBe('signing-key');
    const fresh = await emit(ctx, org.id);
    const got = await stream.next(3);
    expect(payloads(got).map((m) => m.id)).toEqual([fresh.event.id]);
    expect(got.map((m) => m.id)).not.toContain(old1.event.id);
  });

  it('starts now for an organization without events, and its ready id resumes without a gap', async () => {
    const ctx = await makeContext();
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const stream = await open(url, auth);
    const [ready] = await stream.next(2);
    expect(ready!.id).toMatch(/^evt_[0-9a-z]{26}$/);
    stream.close();
    // Written while nobody listens: a client resuming from ready's id gets it.
    const during = await emit(ctx, org.id);
    const resumed = await open(url, auth, { 'last-event-id': ready!.id! });
    expect(payloads(await resumed.next(3)).map((m) => m.id)).toEqual([during.event.id]);
  });

  it('never passes over an event committed after a higher id another process wrote', async () => {
    const ctx = await makeContext();
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const stream = await open(url, auth);
    await stream.next(2);
    // Another process on the same file committed an event in this very millisecond whose random
    // part happens to sort high (or its clock is a little ahead): the stream sends it first.
    const foreign = `${newId('evt', ctx.clock.now()).slice(0, -16)}yzzzzzzzzzzzzzzz`;
    const body = JSON.stringify({
      id: foreign,
      type: 'Transaction_Updated',
      organizationId: org.id,
      createdAt: new Date(ctx.clock.now()).toISOString(),
      timestamp: ctx.clock.now(),
      data,
    });
    await insertEvent(ctx.db, {
      id: foreign,
      org_id: org.id,
      type: 'Transaction_Updated',
      body,
      created_at: new Date(ctx.clock.now()).toISOString(),
    });
    ctx.signals.outbox.emit();
    expect(payloads(await stream.next(3)).map((m) => m.id)).toEqual([foreign]);
    // Committed after it, by this process: it must come after it, or every cursor at `foreign` skips
    // it. SQLite numbers it after it; PostgreSQL orders by writing transaction.
    const later = await emit(ctx, org.id);
    if (!onPostgres) expect(later.event.id > foreign).toBe(true);
    expect((await listEventsAfter(ctx.db, org.id, await streamPositionAfter(ctx.db, org.id, foreign), 10)).map((e) => e.id)).toEqual([
      later.event.id,
    ]);
    expect(payloads(await stream.next(4)).map((m) => m.id)).toEqual([foreign, later.event.id]);
  });

  // SQLite runs one write transaction at a time: two open at once is PostgreSQL's case.
  it.runIf(onPostgres)(
    "takes no lock for order: one organization's events commit while another of its transactions is open, and the stream sends them in commit order once both are readable",
    async () => {
      const { ctx, org, stream, other } = await streamBesideAnotherProcess(20);
      const [first, released] = [gate(), gate()];
      const slow = ctx.db.transaction(async (tx) => {
        const a = await writeEvent(tx, ctx.clock.now(), org.id, 'Transaction_Updated', data);
        first.open();
        await released.passed;
        // Numbered after the other process's event, written by the transaction that began first.
        const b = await writeEvent(tx, ctx.clock.now(), org.id, 'Transaction_Updated', data);
        return [a.event.id, b.event.id];
      });
      await first.passed;
      // Commits while `slow` is open: an organization lock held to the commit would keep it waiting here.
      const quick = await other.db.transaction((tx) => writeEvent(tx, ctx.clock.now(), org.id, 'Transaction_Updated', data));
      other.signals.outbox.emit();
      ctx.signals.outbox.emit();
      // Committed, but behind a transaction still running: a reader that sent it now would pass over `slow`'s events.
      expect(await listEventsAfter(ctx.db, org.id, await streamPositionAfter(ctx.db, org.id, null), 10)).toEqual([]);
      released.open();
      const [a, b] = await slow;
      ctx.signals.outbox.emit();
      expect(payloads(await stream.next(5)).map((m) => m.id)).toEqual([a, b, quick.event.id]);
      expect(quick.event.id < b!).toBe(true);
    },
  );

  it('two processes writing one organization at once while a stream resumes again and again: every event arrives once', async () => {
    const ctx = await makeContext({ 'eventStream.pollIntervalMs': 20 });
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const other = await anotherProcess(ctx);
    const written: string[] = [];
    // Four writers in each process, each event in a transaction that also wrote before it, so the
    // transactions of both processes overlap and commit in another order than their ids.
    // Each process's API commit: SQLite's group commit waits for the other process's write lock on a timer.
    const commits = new Map([ctx, other].map((node) => [node, createGroupCommit(node.db)]));
    const writer = async (node: TestContext) => {
      for (let i = 0; i < 25; i++) {
        const ids = await commits.get(node)!(async (tx) => [
          (await writeEvent(tx, node.clock.now(), org.id, 'Transaction_Updated', data)).event.id,
          (await writeEvent(tx, node.clock.now(), org.id, 'Transaction_Updated', data)).event.id,
        ]);
        written.push(...ids);
        node.signals.outbox.emit();
      }
    };
    const writing = Promise.all([ctx, ctx, ctx, ctx, other, other, other, other].map(writer));
    const total = 8 * 25 * 2;
    const received: string[] = [];
    let last: string | undefined;
    let connections = 0;
    while (received.length < total) {
      // Each connection takes a few events and goes, like a client on a bad network: what arrived
      // past them in the same read is not taken, so the next connection resumes from the last taken.
      const stream = last === undefined ? await open(`${url}?since=${SINCE_ALL}`, auth) : await open(url, auth, { 'last-event-id': last });
      connections++;
      const take = Math.min(7, total - received.length);
      const got = payloads(await stream.next(2 + take)).slice(0, take);
      stream.close();
      received.push(...got.map((m) => m.id!));
      last = got.at(-1)?.id ?? last;
    }
    await writing;
    expect(connections).toBeGreaterThan(10);
    expect(new Set(received).size).toBe(received.length);
    expect([...received].sort()).toEqual([...written].sort());
  });

  it.runIf(onPostgres)(
    "sends an event held back behind another organization's running transaction as soon as that ends, not at the next poll",
    async () => {
      const { ctx, org, stream, other } = await streamBesideAnotherProcess(600_000);
      const [running, released] = [gate(), gate()];
      // A write elsewhere on the server, begun first and still running: it holds the watermark.
      const blocker = other.db.transaction(async (tx) => {
        await tx.value('SELECT pg_current_xact_id()');
        running.open();
        await released.passed;
      });
      await running.passed;
      const written = await emit(ctx, org.id);
      expect(await listEventsAfter(ctx.db, org.id, await streamPositionAfter(ctx.db, org.id, null), 10)).toEqual([]);
      // The signal's read finds the event held back; its transaction ends with no signal to this stream.
      await new Promise((r) => setTimeout(r, 200));
      released.open();
      await blocker;
      expect(payloads(await stream.next(3)).map((m) => m.id)).toEqual([written.event.id]);
    },
    30_000,
  );

  it('replays from ?since=, and Last-Event-ID wins over since', async () => {
    const ctx = await makeContext({}, '2026-03-01T11:00:00.000Z');
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    // Written at given times (the token stays valid on the context's clock).
    const at = (iso: string) => writeEvent(ctx.db, Date.parse(iso), org.id, 'Transaction_Updated', data);
    await at('2026-03-01T10:00:00.000Z');
    const b = await at('2026-03-01T10:30:00.000Z');
    const c = await at('2026-03-01T10:45:00.000Z');
    await untilReadable(ctx, org.id, c.event.id);
    const since = await open(`${url}?since=2026-03-01T10:30:00Z`, auth);
    const got = await since.next(4);
    expect(payloads(got).map((m) => m.id)).toEqual([b.event.id, c.event.id]);
    expect(JSON.parse(got[0]!.data)).toMatchObject({ from: 'since' });
    const resumed = await open(`${url}?since=2026-03-01T10:30:00Z`, auth, { 'last-event-id': b.event.id });
    const again = await resumed.next(3);
    expect(JSON.parse(again[0]!.data)).toEqual({ from: 'after', after: b.event.id });
    expect(payloads(again).map((m) => m.id)).toEqual([c.event.id]);
  });

  it('?since= passes over no event created at or after the time, even one numbered before an event of a clock behind', async () => {
    const ctx = await makeContext({}, '2026-03-01T11:00:00.000Z');
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const at = (iso: string) => writeEvent(ctx.db, Date.parse(iso), org.id, 'Transaction_Updated', data);
    await at('2026-03-01T10:00:00.000Z');
    const inTime = await at('2026-03-01T10:40:00.000Z');
    // Written next by a process whose clock was behind: numbered after inTime, created before the time.
    const behind = await at('2026-03-01T10:20:00.000Z');
    expect(behind.event.id > inTime.event.id).toBe(true);
    await untilReadable(ctx, org.id, behind.event.id);
    const since = await open(`${url}?since=2026-03-01T10:30:00Z`, auth);
    const got = payloads(await since.next(3)).map((m) => m.id);
    // At least once: the one created at 10:40 comes; the one behind may come too (it does: its id is later).
    expect(got).toEqual([inTime.event.id, behind.event.id]);
  });

  // SQLite's query plans (test/support/query-plans.ts): PostgreSQL plans from its own statistics.
  it.skipIf(onPostgres)(
    'finds where ?since= starts by seeking from the time, not by walking back through the events being replayed',
    async () => {
      const ctx = await makeContext();
      const org = await createOrganization(ctx, 'Acme');
      for (const at of ['2026-03-01T10:00:00.000Z', '2026-03-01T10:40:00.000Z']) {
        await insertEvent(ctx.db, {
          id: newId('evt', Date.parse(at)),
          org_id: org.id,
          type: 'Transaction_Updated',
          body: '{}',
          created_at: at,
        });
      }
      const plans = await plansOf(
        ctx.db,
        async () => await replayStartAt(ctx.db, org.id, '2026-03-01T10:30:00.000Z'),
        /FROM events WHERE org_id = \? AND id/,
      );
      expect(plans).toHaveLength(2); // the first event from the time, then the one before it
      for (const { plan } of plans)
        expect(plan).toMatch(/SEARCH events USING (COVERING )?INDEX (events_org_id|sqlite_autoindex_events_1) \(org_id=\? AND id[<>]\?\)/);
    },
  );

  it('reuses the signatures the outbox stored and makes the others off the main thread: a long replay never signs inline', async () => {
    const ctx = await makeContext();
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const events = [await emit(ctx, org.id), await emit(ctx, org.id), await emit(ctx, org.id)];
    const signer = new Signer(ctx);
    const key = await signer.currentKey(org.id);
    const stored = (await signer.sign(org.id, events[0]!.body)).signature;
    await storeSignature(ctx.db, events[0]!.event.id, key.keyId, stored);
    const inline = vi.spyOn(Signer.prototype, 'sign');
    const offThread = vi.spyOn(Signer.prototype, 'signAsync');
    try {
      const stream = await open(`${url}?since=${SINCE_ALL}`, auth);
      const got = payloads(await stream.next(5));
      expect(got.map((m) => m.id)).toEqual(events.map((e) => e.event.id));
      expect((JSON.parse(got[0]!.data) as { signature: string }).signature).toBe(stored);
      expect([inline.mock.calls.length, offThread.mock.calls.length]).toEqual([0, 2]);
    } finally {
      inline.mockRestore();
      offThread.mockRestore();
    }
  });

  it('stores the signatures it makes: a stream in another process over the same events signs none again', async () => {
    const ctx = await makeContext();
    const { tokens, url, signatures } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    // Events no webhook was sent, so the outbox never signed them.
    const events = [await emit(ctx, org.id), await emit(ctx, org.id), await emit(ctx, org.id)];
    const ids = events.map((e) => e.event.id);
    const signAsync = vi.spyOn(Signer.prototype, 'signAsync');
    try {
      const first = await open(`${url}?since=${SINCE_ALL}`, auth);
      const sent = payloads(await first.next(5)).map((m) => JSON.parse(m.data) as { signature: string; keyId: string });
      expect(signAsync).toHaveBeenCalledTimes(3);
      first.close();
      // Stored before they were sent, as the stream sent them.
      const stored = await storedSignatures(ctx, ids);
      expect(ids.map((id) => stored.get(id))).toEqual(sent.map((m) => ({ keyId: m.keyId, signature: m.signature })));
      expect(signatures.unstored).toBe(0);

      // Another daemon on the same file (nothing in its memory) reads them instead of signing.
      const other = await anotherProcess(ctx);
      const second = await open(`${(await serve(other)).url}?since=${SINCE_ALL}`, auth);
      const again = payloads(await second.next(5)).map((m) => JSON.parse(m.data) as { signature: string; keyId: string });
      expect(again).toEqual(sent);
      expect(signAsync).toHaveBeenCalledTimes(3);
    } finally {
      signAsync.mockRestore();
    }
  });

  /** A daemon's API on loopback, an organization with a token, and one webhook to a local receiver. */
  async function streamAndWebhook() {
    const ctx = await makeContext();
    const { tokens, url, signatures } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const receiver = await startReceiver();
    await createWebhook(ctx, org.id, { url: receiver.url });
    return { ctx, url, org, auth, receiver, signatures };
  }

  it('shares its signatures with the dispatcher: a delivery of an event a stream signed signs nothing, and the other way round', async () => {
    const { ctx, url, org, auth, receiver, signatures } = await streamAndWebhook();
    const signAsync = vi.spyOn(Signer.prototype, 'signAsync');
    try {
      // Signed by the stream first, then sent to the webhook with the same signature.
      const streamedFirst = await emitEvent(ctx, org.id, 'Transaction_Updated', { status: 'Completed' });
      ctx.signals.outbox.emit();
      const stream = await open(`${url}?since=${SINCE_ALL}`, auth);
      const [streamed] = payloads(await stream.next(3)).map((m) => JSON.parse(m.data) as { signature: string; keyId: string });
      expect(signAsync).toHaveBeenCalledTimes(1);
      const dispatcher = new Dispatcher(ctx, { random: () => 0.5, signatures });
      expect(await dispatcher.runOnce()).toBe(1);
      expect(signAsync).toHaveBeenCalledTimes(1);
      expect(dispatcher.stats().signatures).toBe(0);
      expect(receiver.received[0]!.headers['x-event-id']).toBe(streamedFirst.event.id);
      expect(receiver.received[0]!.headers['x-signature']).toBe(streamed!.signature);
      expect(receiver.received[0]!.headers['x-signature-key-id']).toBe(streamed!.keyId);

      // Sent first, then streamed with the signature the dispatcher made: written without waking the
      // stream (emitEvent would, and the stream could then sign it before the dispatcher claims it).
      const sentFirst = await withTransaction(ctx, (ctx) =>
        enqueueEvent(ctx, org.id, 'Transaction_Updated', { ...data, status: 'Failed' }),
      );
      expect(await dispatcher.runOnce()).toBe(1);
      expect(dispatcher.stats().signatures).toBe(1);
      ctx.signals.outbox.emit();
      const [, second] = payloads(await stream.next(4)).map((m) => JSON.parse(m.data) as { signature: string });
      expect(receiver.received[1]!.headers['x-event-id']).toBe(sentFirst.event.id);
      expect(second!.signature).toBe(receiver.received[1]!.headers['x-signature']);
      expect(signAsync).toHaveBeenCalledTimes(2);
    } finally {
      signAsync.mockRestore();
    }
  });

  it("unseals an organization's private key once for the stream and the dispatcher together (one Signer per process)", async () => {
    const { ctx, url, org, auth, receiver, signatures } = await streamAndWebhook();
    const open_ = vi.spyOn(ctx.secrets, 'open');
    const signingKeyUnseals = () => open_.mock.calls.filter(([, context]) => String(context).startsWith('webhook_keys.private:')).length;
    // One event for the stream alone (written without deliveries), one for the webhook alone.
    await emit(ctx, org.id);
    const stream = await open(`${url}?since=${SINCE_ALL}`, auth);
    await stream.next(3);
    expect(signingKeyUnseals()).toBe(1);
    await emitEvent(ctx, org.id, 'Transaction_Updated', { status: 'Completed' });
    expect(await new Dispatcher(ctx, { random: () => 0.5, signatures }).runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(signingKeyUnseals()).toBe(1);
  });

  it('gives ?since= a position to resume from even when no event came before that time, or none at all', async () => {
    const ctx = await makeContext({}, '2026-03-01T11:00:00.000Z');
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    const since = await open(`${url}?since=2026-03-01T10:00:00Z`, auth);
    const [ready] = await since.next(1);
    expect(ready!.id).toMatch(/^evt_/);
    // Written while that client was away: resuming from the ready id gets it.
    const later = await writeEvent(ctx.db, ctx.clock.now(), org.id, 'Transaction_Updated', data);
    const resumed = await open(url, auth, { 'last-event-id': ready!.id! });
    expect(payloads(await resumed.next(3)).map((m) => m.id)).toEqual([later.event.id]);
  });

  it('resumes after Last-Event-ID or ?after= and never shows another organization', async () => {
    const ctx = await makeContext();
    const { tokens, url } = await serve(ctx);
    const acme = await makeOrg(ctx, tokens);
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const a1 = await emit(ctx, acme.org.id);
    await emit(ctx, other.org.id);
    const a2 = await emit(ctx, acme.org.id);
    const a3 = await emit(ctx, acme.org.id);
    // Resumed from an event not yet below the watermark, a stream starts at the watermark and sends
    // that event again rather than pass over others: exactly what follows is counted once all are readable.
    await untilReadable(ctx, acme.org.id, a3.event.id);
    const byHeader = await open(url, acme.auth, { 'last-event-id': a1.event.id });
    const got = await byHeader.next(4);
    expect(payloads(got).map((m) => m.id)).toEqual([a2.event.id, a3.event.id]);
    const byQuery = await open(`${url}?after=${a2.event.id}`, acme.auth);
    expect(payloads(await byQuery.next(3))[0]!.id).toBe(a3.event.id);
    const otherStream = await open(`${url}?since=${SINCE_ALL}`, other.auth);
    const otherMessages = await otherStream.next(3);
    expect(payloads(otherMessages)).toHaveLength(1);
    expect(payloads(otherMessages).every((m) => JSON.parse(m.data).body.includes(other.org.id))).toBe(true);
    expect(otherMessages.map((m) => m.id)).not.toContain(a1.event.id);
  });

  it('announces a rotated key before the first event signed with it', async () => {
    const ctx = await makeContext();
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    await emit(ctx, org.id);
    const stream = await open(`${url}?since=${SINCE_ALL}`, auth);
    await stream.next(3);
    const rotated = await rotateSigningKey(ctx, org.id);
    await emit(ctx, org.id);
    const [, , , key, ev] = await stream.next(5);
    expect(key!.event).toBe('signing-key');
    expect(JSON.parse(key!.data).keyId).toBe(rotated.keyId);
    const payload = JSON.parse(ev!.data) as { body: string; signature: string; keyId: string };
    expect(payload.keyId).toBe(rotated.keyId);
    expect(verifySignature(payload.body, payload.signature, rotated.publicKey)).toBe(true);
  });

  it('sends heartbeats', async () => {
    const { stream } = await heartbeatStream();
    await new Promise<void>((resolve) => {
      const check = setInterval(() => stream.comments.length >= 2 && (clearInterval(check), resolve()), 20);
    });
    expect(stream.comments[0]).toBe('heartbeat');
  });

  it('ends the stream of a revoked client at the next heartbeat', async () => {
    const { ctx, url, client, auth, stream } = await heartbeatStream();
    await revokeClient(ctx, client.id);
    await stream.ended;
    const again = await fetch(url, { headers: { authorization: auth } });
    expect(again.status).toBe(401);
  });

  it('sends a revoked client no event: the standing is checked before each batch, not only at heartbeats', async () => {
    const ctx = await makeContext({ 'eventStream.heartbeatMs': 3_600_000 });
    const { tokens, url } = await serve(ctx);
    const { org, client, auth } = await makeOrg(ctx, tokens);
    const stream = await open(url, auth);
    await stream.next(2);
    await emit(ctx, org.id);
    await stream.next(3);
    await revokeClient(ctx, client.id);
    await emit(ctx, org.id);
    await stream.ended;
    expect(stream.messages.map((m) => m.event)).toEqual(['ready', 'signing-key', 'Transaction_Updated']);
  });

  it('ends the stream, and throws nothing out of its timer, when the heartbeat check fails', async () => {
    const { ctx, stream } = await heartbeatStream();
    // Two heartbeats in: the stream's own reads are done and it waits, so the heartbeat's check is what meets the closed database.
    await vi.waitFor(() => expect(stream.comments.length).toBeGreaterThanOrEqual(2));
    await ctx.db.close(); // the revocation check at the next heartbeat now throws
    await stream.ended;
    expect(ctx.logs.lines.some((l) => l.msg === 'event stream heartbeat failed')).toBe(true);
  });

  it('is described in /openapi.json as text/event-stream', async () => {
    const { http } = makeApi(await makeContext());
    const doc = (await http.get('/openapi.json')).body as {
      paths: Record<string, { get: { responses: Record<string, { content?: object }> } }>;
    };
    const op = doc.paths['/v1/notifications/events/stream']!.get;
    expect(Object.keys(op.responses['200']!.content!)).toEqual(['text/event-stream']);
  });

  it("caps one client's open streams with a 429, leaves other clients alone, and frees a slot when a stream closes", async () => {
    const ctx = await makeContext({ 'eventStream.maxStreamsPerClient': 2 });
    const { tokens, url } = await serve(ctx);
    const acme = await makeOrg(ctx, tokens);
    const other = await makeOrg(ctx, tokens, { name: 'Other' });
    const first = await open(url, acme.auth);
    await open(url, acme.auth);
    const refused = await fetch(url, { headers: { authorization: acme.auth } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('too_many_streams');
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await open(url, other.auth)).res.status).toBe(200);
    first.close();
    // The server sees the close once the socket does: poll until the freed slot is taken.
    const deadline = Date.now() + 10_000;
    let again = await fetch(url, { headers: { authorization: acme.auth } });
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      again = await fetch(url, { headers: { authorization: acme.auth } });
    }
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  it('ends a catch-up waiting on a client that stopped reading when that client goes, which frees its slot', async () => {
    const ctx = await makeContext({ 'eventStream.maxStreamsPerClient': 1 });
    const { tokens, url } = await serve(ctx);
    const { org, auth } = await makeOrg(ctx, tokens);
    // About 32 MB of history: far more than the socket buffers hold, so the catch-up must wait for
    // the socket to drain, which never happens while the client reads nothing.
    const padding = 'x'.repeat(16 * 1024);
    await ctx.db.transaction(async (tx) => {
      for (let i = 0; i < 2000; i++) {
        const id = newId('evt', ctx.clock.now());
        const createdAt = new Date(ctx.clock.now()).toISOString();
        await insertEvent(tx, {
          id,
          org_id: org.id,
          type: 'Transaction_Updated',
          body: JSON.stringify({ id, type: 'Transaction_Updated', organizationId: org.id, createdAt, data, padding }),
          created_at: createdAt,
        });
      }
    });
    const stalled = await new Promise<{ req: ClientRequest; res: IncomingMessage }>((resolve, reject) => {
      const req = httpGet(`${url}?since=${SINCE_ALL}`, { headers: { authorization: auth } }, (res) => {
        res.pause();
        resolve({ req, res });
      });
      req.on('error', reject);
    });
    expect(stalled.res.statusCode).toBe(200);
    // The one slot is taken while the catch-up waits.
    await new Promise((r) => setTimeout(r, 300));
    const refused = await fetch(url, { headers: { authorization: auth } });
    expect(refused.status).toBe(429);
    stalled.req.destroy();
    // The slot is freed in the loop's own exit (a finally), so it comes back only if the loop ended:
    // a loop left waiting for a drain that never comes would keep it, and this would time out.
    const deadline = Date.now() + 10_000;
    let again = await fetch(url, { headers: { authorization: auth } });
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      again = await fetch(url, { headers: { authorization: auth } });
    }
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  it('refuses a bad Last-Event-ID and a missing token', async () => {
    const ctx = await makeContext();
    const { tokens, url } = await serve(ctx);
    const { auth } = await makeOrg(ctx, tokens);
    const bad = await fetch(url, { headers: { authorization: auth, 'last-event-id': 'nope' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('headers.last-event-id');
    const badQuery = await fetch(`${url}?after=x`, { headers: { authorization: auth } });
    expect(badQuery.status).toBe(400);
    const badSince = await fetch(`${url}?since=yesterday`, { headers: { authorization: auth } });
    expect(badSince.status).toBe(400);
    expect(((await badSince.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('query.since');
    expect((await fetch(url)).status).toBe(401);
  });
});

import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { runCli, startBorderd } from '../support/process.js';
import { ensureSigningKey, Signer } from '../../src/delivery/signing-keys.js';
import { CaptureLog } from '../../src/receiver/capture-log.js';
import { createTestSigner, type TransactionEventData } from '../../src/verify/index.js';
import { daemonCredentials, openDaemonDb, startLocalApp, startReceive, unreachableBase } from './support.js';

const signer = createTestSigner();
const data: TransactionEventData = {
  id: 'txn_1',
  type: 'Withdrawal',
  status: 'Processing',
  previousStatus: 'Pending',
  amount: '12.50',
  currency: 'USDC',
  network: 'POLYGON',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

async function setup(extra: string[] = []) {
  const dir = tempDir('borderd-receive-');
  const keyFile = join(dir, 'public.pem');
  writeFileSync(keyFile, signer.publicKey);
  const app = await startLocalApp();
  const captureDb = join(dir, 'capture.db');
  const rx = await startReceive(
    ['--forward-to', app.url, '--port', '0', '--public-key', keyFile, '--capture-db', captureDb, '-H', 'X-Local-Auth: abc', ...extra],
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
  const post = (body: string, headers: Record<string, string>) => fetch(rx.url!, { method: 'POST', body, headers });
  return { app, rx, post, captureDb };
}

describe('borderd receive (listen mode)', () => {
  it('a port already taken is one line naming --host and --port (exit 2)', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    const dir = tempDir();
    writeFileSync(join(dir, 'org.pem'), signer.publicKey);
    try {
      const r = await runCli([
        'receive',
        '--forward-to',
        'http://127.0.0.1:9/app',
        '--port',
        String(port),
        '--public-key',
        join(dir, 'org.pem'),
        '--capture-db',
        join(dir, 'c.db'),
      ]);
      expect([r.code, r.stderr]).toEqual([
        2,
        `borderd: cannot listen on 127.0.0.1:${port}: the address is already in use (--host, --port)\n`,
      ]);
      expect(existsSync(join(dir, 'c.db'))).toBe(false); // the capture log this run made is not left behind
    } finally {
      busy.close();
    }
  });

  it('a capture log that cannot be opened is one line naming --capture-db (exit 2)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'org.pem'), signer.publicKey);
    writeFileSync(join(dir, 'not-a-dir'), '');
    const at = join(dir, 'not-a-dir', 'c.db');
    const r = await runCli([
      'receive',
      '--forward-to',
      'http://127.0.0.1:9/app',
      '--port',
      '0',
      '--public-key',
      join(dir, 'org.pem'),
      '--capture-db',
      at,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^borderd: cannot open database ${at}: .*\\(--capture-db\\)\n$`));
  });

  it('forwards a signed event byte-exact with its headers and answers with the app status', async () => {
    const { app, rx, post } = await setup();
    // Odd spacing proves the bytes are not re-serialized on the way.
    const d = signer.signBody(
      `{"id":"evt_a1","type":"Transaction_Updated",  "organizationId":"org_1","createdAt":"2026-01-01T00:00:00.000Z","timestamp":1767225600000,"data":{"amount":"12.50"}}`,
    );
    const res = await post(d.body, d.headers);
    expect(res.status).toBe(200);
    expect((await res.json()) as Record<string, unknown>).toMatchObject({ eventId: 'evt_a1', outcome: 'forwarded' });
    const [got] = await app.waitFor(1);
    expect(got!.body).toBe(d.body);
    expect(got!.headers['x-signature']).toBe(d.headers['x-signature']);
    expect(got!.headers['x-event-id']).toBe('evt_a1');
    expect(got!.headers['x-local-auth']).toBe('abc');
    const [line] = await rx.waitForOutput(
      /^(\S+)  Transaction_Updated evt_a1  \[200\] forwarded -> http:\/\/127\.0\.0\.1:\d+\/hooks \d+ms$/m,
    );
    // The time field: ISO 8601 UTC with milliseconds, taken when the forward finished.
    const time = /^\S+/.exec(line)![0];
    expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Math.abs(Date.parse(time) - Date.now())).toBeLessThan(60_000);
  });

  it('forwards only the signed headers and those derived from the verified body, plus content-type', async () => {
    const { app, post } = await setup();
    const d = signer.signBody(
      `{"id":"evt_h1","type":"Transaction_Created","organizationId":"org_1","createdAt":"2026-01-01T00:00:00.000Z","timestamp":1767225600000,"data":{}}`,
    );
    // A replayed genuine delivery with headers the sender added: none of them is signed.
    const res = await post(d.body, {
      ...d.headers,
      authorization: 'Bearer stolen',
      cookie: 'session=1',
      'x-event-type': 'Evil_Type',
      'x-event-id': 'evt_other',
      'x-forwarded-for': '203.0.113.9',
      'x-delivery-attempt': '3',
    });
    expect(res.status).toBe(200);
    const [got] = await app.waitFor(1);
    const { host: _host, connection: _connection, 'content-length': _length, ...forwarded } = got!.headers;
    expect(forwarded).toEqual({
      'content-type': d.headers['content-type'],
      'user-agent': 'borderd-receive',
      'x-signature': d.headers['x-signature'],
      'x-signature-key-id': d.headers['x-signature-key-id'],
      'webhook-id': d.headers['webhook-id'],
      'webhook-timestamp': d.headers['webhook-timestamp'],
      'webhook-signature': d.headers['webhook-signature'],
      'x-event-id': 'evt_h1',
      'x-event-type': 'Transaction_Created',
      'x-delivery-attempt': '3',
      'x-local-auth': 'abc',
    });
  });

  it('forwards and replays a body that is not UTF-8 byte-exact', async () => {
    const { app, rx, captureDb } = await setup();
    // A latin-1 "é" (0xe9) and a lone continuation byte: both invalid UTF-8, which decoding would
    // turn into 3-byte replacement characters. The signature covers these bytes as they are.
    const bytes = Buffer.concat([
      Buffer.from(
        '{"id":"evt_latin1","type":"Transaction_Updated","organizationId":"org_1","createdAt":"2026-01-01T00:00:00.000Z","timestamp":1767225600000,"data":{"note":"caf',
      ),
      Buffer.from([0xe9, 0x80]),
      Buffer.from('"}}'),
    ]);
    const headers = {
      'content-type': 'application/json',
      'x-signature': signer.sign(bytes),
      'x-signature-key-id': signer.keyId,
      'x-event-id': 'evt_latin1',
      'x-event-type': 'Transaction_Updated',
    };
    const res = await fetch(rx.url!, { method: 'POST', body: bytes, headers });
    expect(res.status).toBe(200);
    const [got] = await app.waitFor(1);
    expect(got!.bytes.length).toBe(bytes.length);
    expect(got!.bytes.equals(bytes)).toBe(true);
    // The capture log keeps the bytes too: a replay sends them unchanged.
    await rx.waitForOutput(/evt_latin1  \[200\] forwarded/);
    expect((await runCli(['receive', 'replay', 'evt_latin1', '--capture-db', captureDb])).code).toBe(0);
    const replayed = (await app.waitFor(2))[1]!;
    expect(replayed.bytes.equals(bytes)).toBe(true);
    expect(replayed.headers['x-signature']).toBe(headers['x-signature']);
  });

  it("answers with Server-Timing: the receiver's own time apart from the app's", async () => {
    const { app, post } = await setup();
    app.delayMs = 300;
    const d = signer.signEvent('Transaction_Updated', data);
    const sent = performance.now();
    const res = await post(d.body, d.headers);
    const roundTrip = performance.now() - sent;
    expect(res.status).toBe(200);
    const timing = /^receive;dur=(\d+\.\d{2}), forward;dur=(\d+\.\d{2})$/.exec(res.headers.get('server-timing') ?? '');
    expect(timing, res.headers.get('server-timing') ?? 'no server-timing header').not.toBeNull();
    // The app's 300 ms are the forward's, not the receiver's: the two parts do not overlap, so
    // together they fit inside the round trip this test saw (counted twice, they would not), on a
    // slow machine as on a fast one. 0.01 ms for the rounding of each.
    const [receive, forward] = [Number(timing![1]), Number(timing![2])];
    expect(forward).toBeGreaterThanOrEqual(300);
    expect(receive + forward).toBeLessThanOrEqual(roundTrip + 0.02);
  });

  it('refuses a tampered body with 401 and forwards nothing', async () => {
    const { app, post, rx } = await setup();
    const d = signer.signEvent('Transaction_Updated', data);
    const res = await post(d.body.replace('12.50', '99.50'), d.headers);
    expect(res.status).toBe(401);
    expect(((await res.json()) as Record<string, unknown>).code).toBe('no_key_matches');
    const unsigned = await post(d.body, { 'content-type': 'application/json' });
    expect(unsigned.status).toBe(401);
    await rx.waitForOutput(/\[401\] rejected/);
    expect(app.received).toHaveLength(0);
  });

  it('answers the sender non-2xx when the local app fails or is down, so the service retries', async () => {
    const { app, post } = await setup();
    const d = signer.signEvent('Transaction_Created', data);
    app.status = 503;
    expect((await post(d.body, d.headers)).status).toBe(503);
    await app.close();
    const down = await post(d.body, d.headers);
    expect(down.status).toBe(502);
    expect(((await down.json()) as Record<string, unknown>).outcome).toBe('failed');
    expect(app.received).toHaveLength(1);
  });

  it('forwards a failed event again on retry, then dedupes it', async () => {
    const { app, post } = await setup();
    const d = signer.signEvent('Transaction_Created', data);
    app.status = 500;
    expect((await post(d.body, d.headers)).status).toBe(500);
    app.status = 200;
    expect((await post(d.body, d.headers)).status).toBe(200);
    const dup = await post(d.body, d.headers);
    expect(dup.status).toBe(200);
    expect(((await dup.json()) as Record<string, unknown>).outcome).toBe('duplicate');
    expect(app.received).toHaveLength(2);
  });

  it('forwards repeats with --no-dedupe and filters types with --events, printing JSON lines', async () => {
    const { app, post, rx } = await setup(['--no-dedupe', '--events', 'Transaction_Created', '--json']);
    const d = signer.signEvent('Transaction_Created', data);
    const other = signer.signEvent('Transaction_Updated', data);
    await post(d.body, d.headers);
    await post(d.body, d.headers);
    const skipped = await post(other.body, other.headers);
    expect(skipped.status).toBe(200);
    expect(((await skipped.json()) as Record<string, unknown>).outcome).toBe('skipped');
    expect(app.received.map((r) => r.headers['x-event-id'])).toEqual([d.event.id, d.event.id]);
    await rx.waitForOutput(/"outcome":"skipped"/);
    const lines = rx
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const events = lines.filter((l) => l.kind === 'event');
    expect(events.map((e) => e.outcome)).toEqual(['forwarded', 'forwarded', 'skipped']);
    expect(events[0]).toMatchObject({ eventId: d.event.id, eventType: 'Transaction_Created', status: 200 });
    expect(typeof events[0]!.latencyMs).toBe('number');
    for (const e of events) expect(e.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('replays a captured event byte-exact', async () => {
    const { app, post, captureDb } = await setup();
    const d = signer.signEvent('Transaction_Created', data);
    await post(d.body, d.headers);
    const res = await runCli(['receive', 'replay', d.event.id, '--capture-db', captureDb, '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ eventId: d.event.id, outcome: 'replayed', status: 200 });
    const received = await app.waitFor(2);
    expect(received[1]!.body).toBe(d.body);
    expect(received[1]!.headers['x-signature']).toBe(d.headers['x-signature']);
    expect(received[1]!.headers['x-borderd-replay']).toBe('true');
    const missing = await runCli(['receive', 'replay', 'evt_nope', '--capture-db', captureDb]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/evt_nope is not in/);
  });

  it('fetches the key from --public-key-url and heals after a rotation', async () => {
    // A stand-in for a borderd's token and public-key routes, its key rotating.
    const rotated = createTestSigner();
    const keys = { current: signer, fetches: 0 };
    const keyServer = createServer((req, res) => {
      if (req.url === '/v1/auth/m2m/token')
        return res.writeHead(201, { 'content-type': 'application/json' }).end('{"accessToken":"tok","tokenType":"Bearer","expiresIn":60}');
      keys.fetches++;
      // The current key; ?keyId= names it, or a key this stand-in does not know (404), as borderd answers.
      const asked = new URL(req.url!, 'http://x').searchParams.get('keyId');
      if (asked !== null && asked !== keys.current.keyId) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          keyId: keys.current.keyId,
          publicKey: keys.current.publicKey,
          algorithm: 'RSA-SHA256',
          createdAt: '2026-01-01T00:00:00.000Z',
        }),
      );
    });
    await new Promise<void>((r) => keyServer.listen(0, '127.0.0.1', r));
    try {
      const app = await startLocalApp();
      const base = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
      const rx = await startReceive(
        ['--forward-to', app.url, '--port', '0', '--public-key-url', base, '--capture-db', join(tempDir(), 'c.db')],
        /listening on (http:\/\/127\.0\.0\.1:\d+)/,
        { BORDERD_CLIENT_ID: 'cli_1', BORDERD_CLIENT_SECRET: 'secret' },
      );
      const first = signer.signEvent('Transaction_Created', data);
      expect((await fetch(rx.url!, { method: 'POST', body: first.body, headers: first.headers })).status).toBe(200);
      keys.current = rotated;
      const second = rotated.signEvent('Transaction_Created', data);
      expect((await fetch(rx.url!, { method: 'POST', body: second.body, headers: second.headers })).status).toBe(200);
      expect(keys.fetches).toBe(2);
      expect(app.received.map((r) => r.body)).toEqual([first.body, second.body]);
    } finally {
      keyServer.close();
    }
  });

  it('answers 503 (not a 401 forgery) while the key cannot be fetched, and forwards nothing', async () => {
    const base = await unreachableBase();
    const app = await startLocalApp();
    const rx = await startReceive(
      ['--forward-to', app.url, '--port', '0', '--public-key-url', base, '--json', '--capture-db', join(tempDir(), 'c.db')],
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
      { BORDERD_CLIENT_ID: 'cli_1', BORDERD_CLIENT_SECRET: 'secret' },
    );
    const d = signer.signEvent('Transaction_Created', data);
    const res = await fetch(rx.url!, { method: 'POST', body: d.body, headers: d.headers });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({ status: 503, code: 'no_public_key' });
    expect(app.received).toEqual([]);
    await expect.poll(() => rx.output()).toMatch(/"outcome":"rejected","status":503/);
  });

  it('stops with exit 1, leaving no capture log, when borderd refuses the credentials for --public-key-url', async () => {
    const refusing = createServer((_req, res) => res.writeHead(401, { 'content-type': 'application/problem+json' }).end('{"status":401}'));
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    try {
      const captureDb = join(tempDir(), 'c.db');
      const base = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
      const r = await runCli(
        ['receive', '--forward-to', 'http://127.0.0.1:1/x', '--port', '0', '--public-key-url', base, '--capture-db', captureDb],
        { BORDERD_CLIENT_ID: 'cli_1', BORDERD_CLIENT_SECRET: 'wrong' },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/--public-key-url .*token request failed with 401; check --client-id and --client-secret/);
      expect(existsSync(captureDb)).toBe(false);
    } finally {
      refusing.close();
    }
  });

  it("verifies a delivery signed with a real borderd's organization key", async () => {
    const daemon = await startBorderd();
    try {
      const db = await openDaemonDb(daemon, (await daemonCredentials(daemon)).clientId);
      const dir = tempDir();
      writeFileSync(join(dir, 'org.pem'), (await ensureSigningKey(db.ctx, db.orgId)).publicKey);
      const app = await startLocalApp();
      const rx = await startReceive(
        ['--forward-to', app.url, '--port', '0', '--public-key', join(dir, 'org.pem'), '--capture-db', join(dir, 'c.db')],
        /listening on (http:\/\/127\.0\.0\.1:\d+)/,
      );
      const event = await db.emit('Transaction_Created', data);
      // The headers the outbox sends, signed by the daemon's own Signer.
      const { signature, keyId } = await new Signer(db.ctx).sign(db.orgId, event.body);
      const headers = {
        'content-type': 'application/json',
        'x-signature': signature,
        'x-signature-key-id': keyId,
        'x-event-id': event.id,
        'x-event-type': 'Transaction_Created',
        'x-delivery-attempt': '1',
      };
      expect((await fetch(rx.url!, { method: 'POST', body: event.body, headers })).status).toBe(200);
      expect((await app.waitFor(1))[0]!.body).toBe(event.body);
    } finally {
      await daemon.stop();
    }
  });

  it('never prints the password of a --forward-to URL, and sends it as basic auth', async () => {
    const dir = tempDir('borderd-receive-');
    writeFileSync(join(dir, 'public.pem'), signer.publicKey);
    const app = await startLocalApp();
    const target = app.url.replace('http://', 'http://dev:s3cr%40t@');
    const rx = await startReceive(
      ['--forward-to', target, '--port', '0', '--public-key', join(dir, 'public.pem'), '--capture-db', join(dir, 'c.db'), '--json'],
      /"url":"(http:\/\/127\.0\.0\.1:\d+)"/,
    );
    const d = signer.signEvent('Transaction_Created', data);
    expect((await fetch(rx.url!, { method: 'POST', body: d.body, headers: d.headers })).status).toBe(200);
    const [got] = await app.waitFor(1);
    expect(got!.headers.authorization).toBe(`Basic ${Buffer.from('dev:s3cr@t').toString('base64')}`);
    await rx.waitForOutput(/"outcome":"forwarded"/);
    const replay = await runCli(['receive', 'replay', d.event.id, '--capture-db', join(dir, 'c.db')]);
    expect(replay.code).toBe(0);
    for (const out of [rx.output(), replay.stdout, replay.stderr]) {
      expect(out).not.toContain('s3cr');
    }
    expect(rx.output()).toContain('http://dev:***@127.0.0.1:');
    expect(replay.stdout).toContain('http://dev:***@127.0.0.1:');
  });

  it('checkpoints the capture log in the background: what it recorded reaches the database file while it runs', async () => {
    const { rx, post, captureDb } = await setup();
    for (const id of ['evt_c1', 'evt_c2', 'evt_c3']) {
      const d = signer.signBody(
        JSON.stringify({
          id,
          type: 'Transaction_Updated',
          organizationId: 'org_1',
          createdAt: '2026-01-01T00:00:00.000Z',
          timestamp: 1767225600000,
          data,
        }),
      );
      expect((await post(d.body, d.headers)).status).toBe(200);
    }
    await rx.waitForOutput(/evt_c3/);
    // The database file alone, without its WAL: SQLite's own checkpoint would wait for 1,000 pages
    // of WAL, these three rows are a few; only the background checkpoint puts them there this soon.
    const copy = join(tempDir('borderd-capture-copy-'), 'main-file-only.db');
    const inMainFile = (): number => {
      copyFileSync(captureDb, copy);
      // Until the first checkpoint even the table is only in the WAL: the log makes it, empty, in the copy.
      const log = new CaptureLog(copy);
      try {
        return ['evt_c1', 'evt_c2', 'evt_c3'].filter((id) => log.get(id) !== undefined).length;
      } finally {
        log.close();
      }
    };
    const deadline = Date.now() + 10_000;
    while (inMainFile() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(inMainFile()).toBe(3);
    expect(rx.output()).not.toMatch(/background checkpoints stopped/);
  });

  it('refuses bad usage with exit code 2, leaving no capture log behind', async () => {
    const captureDb = join(tempDir('borderd-rx-'), 'c.db');
    const noKey = await runCli(['receive', '--forward-to', 'http://127.0.0.1:1/x', '--capture-db', captureDb]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/--public-key/);
    const badType = await runCli([
      'receive',
      '--forward-to',
      'http://127.0.0.1:1/x',
      '--public-key',
      'x',
      '--events',
      'Nope',
      '--capture-db',
      captureDb,
    ]);
    expect(badType.code).toBe(2);
    expect(badType.stderr).toMatch(/unknown event type\(s\) Nope/);
    const noKeyFile = await runCli([
      'receive',
      '--forward-to',
      'http://127.0.0.1:1/x',
      '--public-key',
      join(tempDir('borderd-rx-'), 'none.pem'),
      '--capture-db',
      captureDb,
    ]);
    expect(noKeyFile.code).toBe(2);
    expect(noKeyFile.stderr).toMatch(/--public-key .*none\.pem/);
    const tunnelNoCredentials = await runCli(
      ['receive', '--forward-to', 'http://127.0.0.1:1/x', '--tunnel', 'http://127.0.0.1:1', '--capture-db', captureDb],
      { BORDERD_CLIENT_ID: '', BORDERD_CLIENT_SECRET: '' },
    );
    expect(tunnelNoCredentials.code).toBe(2);
    expect(tunnelNoCredentials.stderr).toMatch(/--tunnel needs --client-id/);
    // Numbers are whole and in range: not a NaN or a port the socket call throws on later.
    for (const [flag, value, said] of [
      ['--port', '70000', /--port must be a whole number from 0 to 65535, not 70000/],
      ['--port', '-5', /--port must be a whole number from 0 to 65535/],
      ['--forward-timeout', '0', /--forward-timeout must be a whole number from 1 to 2147483647, not 0/],
      ['--heartbeat-timeout', 'abc', /--heartbeat-timeout must be a whole number from 1 to 2147483647, not abc$/m],
      // Past what a timer holds: it would fire at once, and the tunnel reconnect in a loop.
      ['--heartbeat-timeout', '99999999999', /--heartbeat-timeout must be a whole number from 1 to 2147483647, not 99999999999/],
    ] as const) {
      const bad = await runCli([
        'receive',
        '--forward-to',
        'http://127.0.0.1:1/x',
        '--tunnel',
        'http://127.0.0.1:1',
        '--client-id',
        'c',
        '--client-secret',
        's',
        flag,
        value,
        '--capture-db',
        captureDb,
      ]);
      expect([bad.code, bad.stderr], `${flag} ${value}`).toEqual([2, expect.stringMatching(said)]);
      expect(bad.stderr).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(captureDb)).toBe(false);
    // Replay reads an existing capture log; a wrong path is said, not created.
    const replay = await runCli(['receive', 'replay', 'evt_any', '--capture-db', captureDb]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toMatch(/no capture log at .*c\.db/);
    expect(existsSync(captureDb)).toBe(false);
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaptureLog } from '../../src/receiver/capture-log.js';
import { createTestSigner, type TransactionEventData } from '../../src/verify/index.js';
import { tempDir } from '../support/context.js';
import { runCli } from '../support/process.js';
import { startLocalApp, startReceive } from './support.js';

/** `borderd receive replay`: where it sends, what it records, how it refuses a bad target. */
const signer = createTestSigner();
const data: TransactionEventData = {
  id: 'txn_r',
  type: 'Deposit',
  status: 'Completed',
  previousStatus: 'Pending',
  amount: '7.00',
  currency: 'USDC',
  network: 'ETHEREUM',
  source: null,
  destination: null,
  failureReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** The capture log's row, read through a second connection while the receiver holds the file. */
function row(captureDb: string, eventId: string) {
  const log = new CaptureLog(captureDb);
  try {
    return log.get(eventId);
  } finally {
    log.close();
  }
}

describe('borderd receive replay', () => {
  it('to another target leaves the recorded target and status alone; to the own target records the result', async () => {
    const dir = tempDir('borderd-replay-');
    writeFileSync(join(dir, 'public.pem'), signer.publicKey);
    const captureDb = join(dir, 'capture.db');
    const app = await startLocalApp();
    const staging = await startLocalApp();
    const rx = await startReceive(
      ['--forward-to', app.url, '--port', '0', '--public-key', join(dir, 'public.pem'), '--capture-db', captureDb],
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    const d = signer.signEvent('Transaction_Created', data);
    const deliver = async () => {
      const res = await fetch(rx.url!, { method: 'POST', body: d.body, headers: d.headers });
      return { status: res.status, ...((await res.json()) as { outcome: string }) };
    };
    expect(await deliver()).toMatchObject({ status: 200, outcome: 'forwarded' });
    // The console line is written with the capture log's row, in the same synchronous step.
    await rx.waitForOutput(new RegExp(`${d.event.id}  \\[200\\] forwarded`));

    // A try against a staging app that fails.
    staging.status = 503;
    const toStaging = await runCli(['receive', 'replay', d.event.id, '--capture-db', captureDb, '--forward-to', staging.url, '--json']);
    expect(toStaging.code).toBe(1);
    expect(JSON.parse(toStaging.stdout)).toMatchObject({ outcome: 'replayed', status: 503, target: staging.url });
    expect(staging.received).toHaveLength(1);
    expect(row(captureDb, d.event.id)).toMatchObject({ target: app.url, forwardStatus: 200, attempts: 1 });

    // borderd's own retry of the delivery the app already took with a 200 is still a duplicate.
    expect(await deliver()).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(app.received).toHaveLength(1);

    // A plain replay goes to the original target, not to where the last replay went.
    const plain = await runCli(['receive', 'replay', d.event.id, '--capture-db', captureDb, '--json']);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ status: 200, target: app.url });
    expect((await app.waitFor(2))[1]!.headers['x-borderd-replay']).toBe('true');
    expect(staging.received).toHaveLength(1);
    expect(row(captureDb, d.event.id)).toMatchObject({ target: app.url, forwardStatus: 200, attempts: 2 });

    // A replay to the own target is a delivery to it: its failure is recorded, and the next real
    // delivery is forwarded again instead of answered duplicate.
    app.status = 500;
    expect((await runCli(['receive', 'replay', d.event.id, '--capture-db', captureDb, '--forward-to', app.url])).code).toBe(1);
    expect(row(captureDb, d.event.id)).toMatchObject({ target: app.url, forwardStatus: 500, attempts: 3 });
    app.status = 200;
    expect(await deliver()).toMatchObject({ status: 200, outcome: 'forwarded' });
    expect(app.received).toHaveLength(4);
  });

  it('refuses a --forward-to that is not an http(s) URL in one line with exit code 2', async () => {
    const captureDb = join(tempDir('borderd-replay-'), 'capture.db');
    const log = new CaptureLog(captureDb);
    log.record({
      eventId: 'evt_r1',
      eventType: 'Transaction_Created',
      body: '{"id":"evt_r1"}',
      headers: {},
      receivedAt: 't',
      target: 'http://127.0.0.1:9/app',
      status: 500,
      at: 't',
    });
    log.close();
    for (const bad of ['notaurl', 'ftp://127.0.0.1/app']) {
      const r = await runCli(['receive', 'replay', 'evt_r1', '--capture-db', captureDb, '--forward-to', bad]);
      expect([r.code, r.stderr], bad).toEqual([2, 'borderd: --forward-to must be an http(s) URL\n']);
    }
    // Nothing was sent, so nothing was recorded.
    expect(row(captureDb, 'evt_r1')).toMatchObject({ forwardStatus: 500, attempts: 1 });
  });
});

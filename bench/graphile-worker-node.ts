/**
 * One process of the PostgreSQL peer (graphile-peer.ts): a Graphile Worker runner whose `deliver`
 * task signs each job's body with RSA-SHA256 (node:crypto, on libuv's thread pool, as borderd signs)
 * and POSTs it to the benchmark's verifying receiver, over keep-alive connections. A job whose POST
 * is not answered 2xx throws, so Graphile Worker retries it. Job fetch and completion are batched
 * (its local queue and completion batching), as its documentation advises for throughput.
 * Run as a child process, configured by its environment: PEER_DATABASE_URL, PEER_PRIVATE_KEY_FILE,
 * PEER_RECEIVER_URL and PEER_CONCURRENCY. Prints `ready` once its runner is started; SIGTERM stops
 * it after the jobs in hand, then it prints `delivered N` and exits.
 *
 * @module bench/graphile-worker-node
 */
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Logger, run, type Task } from 'graphile-worker';
import { Pool } from 'undici';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`graphile-worker-node: ${name} is not set\n`);
    process.exit(2);
  }
  return value;
};

const connectionString = need('PEER_DATABASE_URL');
const key = createPrivateKey(readFileSync(need('PEER_PRIVATE_KEY_FILE'), 'utf8'));
const receiver = new URL(need('PEER_RECEIVER_URL'));
const concurrency = Number(need('PEER_CONCURRENCY'));
const signAsync = promisify(sign);
const pool = new Pool(receiver.origin, { connections: concurrency, pipelining: 1 });
let delivered = 0;

/** The job's payload: the event's id and the exact body bytes to sign and send. */
interface Payload {
  id: string;
  body: string;
}

const deliver: Task = async (payload) => {
  const { id, body } = payload as Payload;
  const bytes = Buffer.from(body, 'utf8');
  const signature = (await signAsync('sha256', bytes, key)).toString('base64');
  const res = await pool.request({
    method: 'POST',
    path: receiver.pathname,
    headers: {
      'content-type': 'application/json',
      'x-signature': signature,
      'x-signature-key-id': 'peer',
      'x-event-id': id,
      'x-event-type': 'Transaction_Updated',
    },
    body: bytes,
  });
  await res.body.dump();
  if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`the receiver answered ${res.statusCode}`);
  delivered++;
};

const runner = await run({
  connectionString,
  concurrency,
  maxPoolSize: concurrency + 2,
  noHandleSignals: true,
  taskList: { deliver },
  // Quiet: a line per job would cost the peer what borderd's runs do not pay.
  logger: new Logger(() => () => undefined),
  preset: { worker: { localQueue: { size: concurrency + 1 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void runner
    .stop()
    .then(() => pool.close())
    .then(() => {
      process.stdout.write(`delivered ${delivered}\n`);
      process.exit(0);
    });
});

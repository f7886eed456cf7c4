/**
 * The worker's side of the outbox benchmark's peers: what every peer job does, the same for
 * Graphile Worker and BullMQ. It signs the job's body with RSA-SHA256 (node:crypto, on libuv's
 * thread pool, as borderd signs) and POSTs it to the verifying receiver over keep-alive
 * connections (undici, the client under Node's fetch, one connection per job in flight); an
 * answer that is not 2xx throws, so the queue retries the job. Configured by the environment:
 * PEER_PRIVATE_KEY_FILE, PEER_RECEIVER_URL and PEER_CONCURRENCY; a variable missing is one line
 * and exit 2.
 *
 * @module bench/peer-sender
 */
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Pool } from 'undici';

/** A peer job's payload: the event's id and the exact body bytes to sign and send. */
export interface PeerPayload {
  id: string;
  body: string;
}

/** An environment variable the worker cannot run without. */
export function need(name: string): string {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`peer worker: ${name} is not set\n`);
    process.exit(2);
  }
  return value;
}

export interface PeerSender {
  /** Jobs in flight in this process. */
  concurrency: number;
  deliver(payload: PeerPayload): Promise<void>;
  /** Jobs delivered (answered 2xx) so far. */
  readonly delivered: number;
  /** On SIGTERM: `stopQueue` (the jobs in hand finish), then the connections close, `delivered N` is printed and the process exits. */
  exitOnSigterm(stopQueue: () => Promise<void>): void;
}

const signAsync = promisify(sign);

export function peerSender(): PeerSender {
  const key = createPrivateKey(readFileSync(need('PEER_PRIVATE_KEY_FILE'), 'utf8'));
  const receiver = new URL(need('PEER_RECEIVER_URL'));
  const concurrency = Number(need('PEER_CONCURRENCY'));
  const pool = new Pool(receiver.origin, { connections: concurrency, pipelining: 1 });
  let delivered = 0;
  return {
    concurrency,
    get delivered() {
      return delivered;
    },
    async deliver({ id, body }) {
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
    },
    exitOnSigterm(stopQueue) {
      process.on('SIGTERM', () => {
        void stopQueue()
          .then(() => pool.close())
          .then(() => {
            process.stdout.write(`delivered ${delivered}\n`);
            process.exit(0);
          });
      });
    },
  };
}

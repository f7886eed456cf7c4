/**
 * One process of the Redis peer (bullmq-peer.ts): a BullMQ Worker whose processor is the peers'
 * one job (peer-sender.ts: sign RSA-SHA256, POST to the verifying receiver), PEER_CONCURRENCY jobs
 * at a time, with BullMQ's defaults otherwise (it logs nothing per job). Run as a child process,
 * configured by its environment: PEER_REDIS_PORT, PEER_QUEUE and peer-sender.ts's variables.
 * Prints `ready` once the worker is connected; SIGTERM stops it after the jobs in hand, then it
 * prints `delivered N` and exits.
 *
 * @module bench/bullmq-worker-node
 */
import { Worker } from 'bullmq';
import { need, peerSender, type PeerPayload } from './peer-sender.js';

const port = Number(need('PEER_REDIS_PORT'));
const queue = need('PEER_QUEUE');
const sender = peerSender();

const worker = new Worker<PeerPayload>(queue, (job) => sender.deliver(job.data), {
  // A worker's blocking connection must retry forever, as BullMQ requires.
  connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
  concurrency: sender.concurrency,
});
worker.on('error', (err) => process.stderr.write(`bullmq worker: ${err.message}\n`));
await worker.waitUntilReady();
process.stdout.write('ready\n');
sender.exitOnSigterm(() => worker.close());

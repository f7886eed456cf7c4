/**
 * One process of the PostgreSQL peer (graphile-peer.ts): a Graphile Worker runner whose `deliver`
 * task is the peers' one job (peer-sender.ts: sign RSA-SHA256, POST to the verifying receiver).
 * Job fetch and completion are batched (its local queue and completion batching), as its
 * documentation advises for throughput. Run as a child process, configured by its environment:
 * PEER_DATABASE_URL and peer-sender.ts's variables. Prints `ready` once its runner is started;
 * SIGTERM stops it after the jobs in hand, then it prints `delivered N` and exits.
 *
 * @module bench/graphile-worker-node
 */
import { Logger, run, type Task } from 'graphile-worker';
import { need, peerSender, type PeerPayload } from './peer-sender.js';

const connectionString = need('PEER_DATABASE_URL');
const sender = peerSender();
const { concurrency } = sender;

const deliver: Task = (payload) => sender.deliver(payload as PeerPayload);

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
sender.exitOnSigterm(() => runner.stop());

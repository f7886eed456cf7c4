/**
 * The PostgreSQL peer of the outbox benchmark: Graphile Worker (npm graphile-worker, a dev
 * dependency of the benchmarks alone) drains the same backlog as borderd's PostgreSQL layouts, on
 * the same server, to the same verifying receiver. One job per delivery, each signed RSA-SHA256 and
 * POSTed by graphile-worker-node.ts; PEER_SLOTS jobs in flight in all (borderd's layouts have one
 * webhook of that many send slots), split between its processes as borderd's nodes split the
 * slots. The server keeps its settings (synchronous_commit on). The jobs are added in one statement
 * while the workers wait, then timed like borderd's released backlog, from the first receipt to the
 * last, with a ledger (peer-process.ts). As borderd's nodes, the same processes drain a warm-up
 * backlog first (the fresh figures; the backlog's size for each process, so each is as warm as one
 * process alone), then the measured one (the warm figures).
 *
 * @module bench/graphile-peer
 */
import { makeWorkerUtils } from 'graphile-worker';
import { drainByPeer, type PeerResult } from './peer-process.js';
import type { PostgresServer } from './postgres-server.js';

export { PEER_SLOTS, type PeerResult } from './peer-process.js';

/** Graphile Worker in `processes` processes drains a warm-up backlog of `backlog` jobs, then the measured one; a database of its own on `server`. */
export async function graphilePeer(
  server: PostgresServer,
  processes: number,
  backlog: number,
  log: (line: string) => void,
): Promise<PeerResult> {
  const connectionString = await server.createDatabase(`bench_graphile_${processes}`);
  const utils = await makeWorkerUtils({ connectionString });
  try {
    await utils.migrate();
    return await drainByPeer(
      {
        name: 'Graphile Worker',
        script: 'graphile-worker-node',
        workerEnv: { PEER_DATABASE_URL: connectionString },
        addJobs: async (jobs) => void (await utils.addJobs(jobs.map((payload) => ({ identifier: 'deliver', payload })))),
        serverCpuSeconds: () => server.cpuSeconds(),
      },
      processes,
      backlog,
      `peer_${processes}`,
      log,
      { warmUp: backlog * processes },
    );
  } finally {
    await utils.release();
  }
}

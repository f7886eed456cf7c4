/**
 * The noisy neighbour: one organization's commit→receipt to a quick endpoint, at a steady rate,
 * with another organization quiet and then with that one's ten endpoints answering after seconds and
 * a backlog to send them. The ratio of the two p99s is what one tenant's slow endpoints cost another
 * (docs/webhooks.md, "Sharing between organizations").
 *
 * @module bench/noisy-neighbour
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchOutcome } from './bench-types.js';
import { cli, startDaemon, type BenchDaemon } from './daemon-process.js';
import { OUTBOX_ENV } from './outbox-env.js';
import { OutboxScenario } from './outbox-scenario.js';
import { round, summarize } from './percentiles.js';

/** The neighbour's endpoints. */
const SLOW_WEBHOOKS = 10;

/** A local endpoint that answers every POST after `delayMs`; `close` drops what it still holds. */
async function slowEndpoint(delayMs: number) {
  const held = new Set<NodeJS.Timeout>();
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const t = setTimeout(() => {
        held.delete(t);
        res.end('ok');
      }, delayMs);
      held.add(t);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const t of held) clearTimeout(t);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A second organization of the daemon with `count` webhooks on `url`; returns its id. */
async function neighbour(daemon: BenchDaemon, url: string, count: number): Promise<string> {
  const env = { BORDERD_DATA_DIR: daemon.dataDir };
  const org = await cli<{ id: string }>(['orgs', 'create', '--name', 'Noisy neighbour', ...daemon.databaseArgs], env);
  const client = await cli<{ id: string; clientSecret: string }>(['clients', 'create', '--org', org.id, ...daemon.databaseArgs], env);
  const tokenRes = await fetch(`${daemon.url}/v1/auth/m2m/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: client.id, clientSecret: client.clientSecret }),
  });
  if (!tokenRes.ok) throw new Error(`token: ${tokenRes.status} ${await tokenRes.text()}`);
  const { accessToken } = (await tokenRes.json()) as { accessToken: string };
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${daemon.url}/v1/notifications/webhooks/settings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${url}/hook/${i}` }),
    });
    if (res.status !== 201) throw new Error(`webhook: ${res.status} ${await res.text()}`);
  }
  return org.id;
}

/** Writes `count` events of `orgId` through the admin API, one after another. */
async function writeBacklog(daemon: BenchDaemon, orgId: string, count: number): Promise<void> {
  const body = JSON.stringify({ orgId, type: 'Transaction_Updated' });
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${daemon.url}/admin/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.adminToken}`, 'content-type': 'application/json' },
      body,
    });
    await res.text();
    if (res.status !== 201) throw new Error(`event: ${res.status}`);
  }
}

export async function noisyNeighbour(quick: boolean, log: (line: string) => void): Promise<BenchOutcome> {
  const slowMs = quick ? 2000 : 5000;
  const rate = 50;
  const seconds = quick ? 2 : 10;
  const backlog = quick ? 50 : 300;
  const daemon = await startDaemon({ env: OUTBOX_ENV });
  const scenario = await OutboxScenario.start(daemon);
  const slow = await slowEndpoint(slowMs);
  try {
    await scenario.addWebhooks(1, true);
    /** The quick organization's p99 commit→receipt over `seconds` at `rate`. */
    const measure = async () => {
      await scenario.resetReceiver();
      const offered = await scenario.writeEventsPaced(rate, seconds);
      await scenario.waitForDeliveries(offered.requests, 60_000, 'distinctEvents');
      return summarize((await scenario.stats(true)).latenciesMs ?? []);
    };
    // A first round opens the endpoint's sockets and caches the signing key: not part of either figure.
    await measure();
    const quiet = await measure();
    log(`noisy neighbour: p99 ${round(quiet.p99, 1)} ms with the neighbour quiet`);
    const neighbourId = await neighbour(daemon, slow.url, SLOW_WEBHOOKS);
    await writeBacklog(daemon, neighbourId, backlog);
    const noisy = await measure();
    const ratio = quiet.p99 > 0 ? noisy.p99 / quiet.p99 : 0;
    log(`noisy neighbour: p99 ${round(noisy.p99, 1)} ms beside ${SLOW_WEBHOOKS} endpoints answering after ${slowMs} ms`);
    return {
      rows: [
        {
          metric: 'noisy neighbour: commit→receipt p99, quiet',
          value: round(quiet.p99, 2),
          unit: 'ms',
          note: `one organization, one quick endpoint, ${rate} events/s for ${seconds} s`,
        },
        {
          metric: 'noisy neighbour: commit→receipt p99, beside slow endpoints',
          value: round(noisy.p99, 2),
          unit: 'ms',
          note: `the same while another organization's ${SLOW_WEBHOOKS} endpoints answer after ${slowMs} ms with ${backlog} events (${backlog * SLOW_WEBHOOKS} deliveries) to send; target < 250 ms`,
        },
        { metric: 'noisy neighbour: p99 ratio', value: round(ratio, 2), unit: '×', note: 'beside slow endpoints ÷ quiet; target ≤ 3' },
      ],
      metrics: {
        noisyNeighbourQuietP99Ms: round(quiet.p99),
        noisyNeighbourP99Ms: round(noisy.p99),
        noisyNeighbourRatio: round(ratio, 3),
        noisyNeighbourSlowMs: slowMs,
      },
    };
  } finally {
    await slow.close();
    await scenario.stop();
    await daemon.stop();
  }
}

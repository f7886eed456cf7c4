/**
 * Ordered delivery's cost: the same backlog of events on 50 resources delivered by a webhook with
 * `ordering: none` and by one with `ordering: resource`, each on a fresh `borderd serve`, nothing
 * failing. Reported as deliveries/s of each and their ratio (docs/webhooks.md, "Ordering and
 * guarantees").
 *
 * @module bench/outbox-ordering
 */
import { Pool } from 'undici';
import type { BenchOutcome } from './bench-types.js';
import { bearerToken, startDaemon, type BenchDaemon } from './daemon-process.js';
import { OUTBOX_ENV } from './outbox-env.js';
import { OutboxScenario, type ReceiverStats } from './outbox-scenario.js';
import { round } from './percentiles.js';

/** The resources the events are spread over, in turn. */
const RESOURCES = 50;

type Ordering = 'none' | 'resource';

/** Writes `events` events through the admin API, event i about resource i mod RESOURCES, ten requests at a time. */
async function writeResourceEvents(daemon: BenchDaemon, orgId: string, events: number): Promise<void> {
  const pool = new Pool(new URL(daemon.url).origin, { connections: 10 });
  const headers = { authorization: `Bearer ${daemon.adminToken}`, 'content-type': 'application/json' };
  let next = 0;
  const worker = async () => {
    while (next < events) {
      const i = next++;
      const body = JSON.stringify({ orgId, type: 'Transaction_Updated', data: { id: `txn_bench${i % RESOURCES}`, sequence: i } });
      const res = await pool.request({ method: 'POST', path: '/admin/v1/events', headers, body });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`writing events: ${res.statusCode} ${text.slice(0, 300)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: 10 }, worker));
  } finally {
    await pool.close();
  }
}

/** One run: a disabled webhook with `ordering`, the backlog written, then released at once and timed to its last receipt. */
async function deliver(ordering: Ordering, events: number, timeoutMs: number): Promise<ReceiverStats> {
  const daemon = await startDaemon({ env: OUTBOX_ENV });
  const scenario = await OutboxScenario.start(daemon);
  try {
    await scenario.addWebhooks(1, false);
    const res = await fetch(`${daemon.url}/v1/notifications/webhooks/settings/${scenario.webhookIds[0]}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${await bearerToken(daemon)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${scenario.receiver.url}/hook/0`, enabled: false, ordering }),
    });
    if (!res.ok) throw new Error(`setting ordering ${ordering}: ${res.status} ${await res.text()}`);
    await writeResourceEvents(daemon, scenario.orgId, events);
    await scenario.resetReceiver();
    await scenario.releaseBacklog();
    return await scenario.waitForDeliveries(events, timeoutMs);
  } finally {
    await scenario.stop();
    await daemon.stop();
  }
}

/** Deliveries/s of an unordered and an ordered webhook on the same events; `rate` turns receiver stats into receipts per second. */
export async function orderingComparison(
  quick: boolean,
  log: (line: string) => void,
  rate: (s: ReceiverStats) => number,
): Promise<BenchOutcome> {
  const events = quick ? 200 : 5_000;
  const timeoutMs = quick ? 60_000 : 600_000;
  const rates = {} as Record<Ordering, number>;
  for (const ordering of ['none', 'resource'] as const) {
    log(`outbox: ${events} events on ${RESOURCES} resources, ordering ${ordering}`);
    rates[ordering] = rate(await deliver(ordering, events, timeoutMs));
  }
  const ratio = rates.none > 0 ? (rates.resource / rates.none) * 100 : 0;
  return {
    rows: [
      { metric: `deliveries/s, ordering none, ${RESOURCES} resources`, value: round(rates.none, 0), unit: '/s', note: `${events} events` },
      {
        metric: `deliveries/s, ordering resource, ${RESOURCES} resources`,
        value: round(rates.resource, 0),
        unit: '/s',
        note: `${events} events`,
      },
      { metric: 'ordered ÷ unordered deliveries/s', value: round(ratio, 1), unit: '%', note: 'target ≥ 70%' },
    ],
    metrics: { deliveriesUnordered50: rates.none, deliveriesOrdered50: rates.resource, orderedRatioPct: ratio },
  };
}

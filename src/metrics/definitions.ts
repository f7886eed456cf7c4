/**
 * Every Prometheus metric borderd exports, defined in this one file on a registry of the process's
 * own: names, help texts, label sets and buckets. Names follow Prometheus conventions (base units,
 * `_total` for counters, `_seconds` and `_bytes`); labels take bounded sets of values only (an
 * outcome, a route pattern, an organization id), never an event, delivery or request id.
 *
 * Counters and histograms move where a fact happens (src/metrics/observe.ts listens to the typed
 * signals); gauges that need the database are read at scrape time (src/metrics/scrape.ts), and so
 * is the events counter, since events are committed by other processes too (the CLI, other nodes).
 *
 * @module metrics/definitions
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds, from a millisecond HTTP call to a slow endpoint near the delivery timeout. */
const SEND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds, from an immediate delivery to one that waited through a day of retries. */
const COMMIT_TO_DELIVERY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60, 300, 1800, 3600, 21_600, 86_400];
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const TRANSACTION_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** The gauges read at scrape time, and what sets each then (src/metrics/scrape.ts). */
export type ScrapedGauge =
  | 'outboxPending'
  | 'outboxOldestAge'
  | 'blockedResources'
  | 'deliverySending'
  | 'deliveryQueued'
  | 'webhooks'
  | 'inboundBacklog'
  | 'eventStreamClients'
  | 'sqliteWalSize';
export type AtScrape = Partial<Record<ScrapedGauge, (gauge: Gauge<string>) => void | Promise<void>>> & {
  /** The events committed since the last scrape, by any process: the database is where they are all seen. */
  events?: (counter: Counter<string>) => Promise<void>;
};

export function defineMetrics(registry: Registry, atScrape: AtScrape = {}) {
  const registers = [registry];
  const collect = (name: ScrapedGauge) =>
    function (this: Gauge<string>) {
      return atScrape[name]?.(this);
    };
  return {
    deliveryAttempts: new Counter({
      name: 'borderd_delivery_attempts_total',
      help: 'Webhook delivery attempts recorded, by outcome (success, http_error, timeout, connect_error, refused_address, signing_error).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    deliveryDuration: new Histogram({
      name: 'borderd_delivery_duration_seconds',
      help: 'Time of one delivery attempt, from the request leaving to its answer or failure.',
      buckets: SEND_BUCKETS,
      registers,
    }),
    commitToDelivery: new Histogram({
      name: 'borderd_commit_to_delivery_seconds',
      help: 'Time from an event being committed to a 2xx answer from a webhook, retries included.',
      buckets: COMMIT_TO_DELIVERY_BUCKETS,
      registers,
    }),
    outboxPending: new Gauge({
      name: 'borderd_outbox_pending',
      help: 'Deliveries pending (due or waiting for a retry), per organization; each count stops at metrics.backlogCountLimit.',
      labelNames: ['org_id'] as const,
      registers,
      collect: collect('outboxPending'),
    }),
    outboxOldestAge: new Gauge({
      name: 'borderd_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest pending delivery, per organization (0 when nothing is pending).',
      labelNames: ['org_id'] as const,
      registers,
      collect: collect('outboxOldestAge'),
    }),
    blockedResources: new Gauge({
      name: 'borderd_outbox_blocked_resources',
      help: 'Resources of ordered webhooks whose deliveries wait behind a head that has failed, per organization; each count stops at metrics.backlogCountLimit.',
      labelNames: ['org_id'] as const,
      registers,
      collect: collect('blockedResources'),
    }),
    deliverySending: new Gauge({
      name: 'borderd_delivery_sending',
      help: 'Webhook sends in flight on this process, per organization: what each holds of the send slots.',
      labelNames: ['org_id'] as const,
      registers,
      collect: collect('deliverySending'),
    }),
    deliveryQueued: new Gauge({
      name: 'borderd_delivery_queued',
      help: 'Deliveries this process has claimed that wait for a send slot, per organization.',
      labelNames: ['org_id'] as const,
      registers,
      collect: collect('deliveryQueued'),
    }),
    webhooks: new Gauge({
      name: 'borderd_webhooks',
      help: 'Live webhooks, by state (enabled, disabled).',
      labelNames: ['state'] as const,
      registers,
      collect: collect('webhooks'),
    }),
    events: new Counter({
      name: 'borderd_events_total',
      help: 'Events committed to the outbox, by event type, by any process or node, since this process started.',
      labelNames: ['type'] as const,
      registers,
      collect(this: Counter<string>) {
        return atScrape.events?.(this);
      },
    }),
    inboundNotifications: new Counter({
      name: 'borderd_inbound_notifications_total',
      help: 'Card-network notifications by stage (intake, decryption) and outcome.',
      labelNames: ['stage', 'outcome'] as const,
      registers,
    }),
    inboundBacklog: new Gauge({
      name: 'borderd_inbound_backlog',
      help: 'Card-network notifications not decrypted, by state (received, failed, unmatched); each count stops at metrics.backlogCountLimit.',
      labelNames: ['state'] as const,
      registers,
      collect: collect('inboundBacklog'),
    }),
    eventStreamClients: new Gauge({
      name: 'borderd_event_stream_clients',
      help: 'Event streams open on this process.',
      registers,
      collect: collect('eventStreamClients'),
    }),
    httpRequests: new Counter({
      name: 'borderd_http_requests_total',
      help: 'API requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'borderd_http_request_duration_seconds',
      help: 'Time to answer an API request, by method and route pattern.',
      labelNames: ['method', 'route'] as const,
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    groupCommitWrites: new Histogram({
      name: 'borderd_db_group_commit_writes',
      help: 'API writes committed together by one group commit.',
      buckets: BATCH_BUCKETS,
      registers,
    }),
    transactionDuration: new Histogram({
      name: 'borderd_db_transaction_seconds',
      help: 'Time of a committed write transaction, from BEGIN to COMMIT.',
      buckets: TRANSACTION_BUCKETS,
      registers,
    }),
    sqliteWalSize: new Gauge({
      name: 'borderd_sqlite_wal_bytes',
      help: 'Size of the SQLite write-ahead log file in bytes (0 on PostgreSQL).',
      registers,
      collect: collect('sqliteWalSize'),
    }),
    storageFull: new Gauge({
      name: 'borderd_storage_full',
      help: '1 while the database or its disk is full and writes are refused (503 storage_full), else 0.',
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof defineMetrics>;

/**
 * prom-client's gauges named like counters, which `promtool check metrics` refuses: each is the sum
 * of a per-type gauge that stays (nodejs_active_handles{type}, nodejs_active_requests{type},
 * nodejs_active_resources{type}).
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** A registry with borderd's metrics and prom-client's process metrics (CPU, memory, event loop lag, handles). */
export function createRegistry(atScrape: AtScrape = {}): { registry: Registry; metrics: Metrics } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  return { registry, metrics: defineMetrics(registry, atScrape) };
}

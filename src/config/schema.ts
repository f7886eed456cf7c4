/**
 * The one description of borderd's configuration: its keys, types, limits and defaults.
 * The defaults are the development profile (loopback, http allowed) so that `borderd serve`
 * with no config file is a working local daemon; config/production.yaml shows the strict profile.
 *
 * @module config/schema
 */
import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { validate as isCronExpression } from 'node-cron';
import { z } from 'zod';
import { countryCode } from '../domain/country-code.js';

const port = z.number().int().min(0).max(65535);
/**
 * The longest delay a Node.js timer holds (a signed 32-bit int of ms, about 24.8 days). Above it,
 * setTimeout and setInterval fire after 1 ms instead, and SQLite reads such a busy_timeout as 0.
 */
export const MAX_TIMER_MS = 2_147_483_647;
const MAX_TIMER_MESSAGE = `must be at most ${MAX_TIMER_MS} ms (about 24.8 days), the longest delay a timer can hold`;
const positiveMs = z.number().int().positive().max(MAX_TIMER_MS, MAX_TIMER_MESSAGE);
/** One delay of a retry schedule: at most 30 days, so a due time always stays a valid date. */
const retryDelaySeconds = z
  .number()
  .min(0)
  .max(30 * 86_400, 'must be at most 2592000 (30 days)');

function isCidr(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

const PROXY_PRESETS = ['loopback', 'linklocal', 'uniquelocal'];
const TRUST_PROXY_HELP =
  'use a hop count (the number of proxies in front, e.g. 1) or the proxies\' addresses / CIDR ranges (e.g. ["10.0.0.0/8"]); false when nothing is in front';

/** false | hop count | proxy addresses. A comma-separated string (an environment variable) is a list. */
const trustProxySchema = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : v,
  z.union(
    [
      z.literal(false),
      z.number().int().min(0).max(16),
      z
        .array(
          z
            .string()
            .refine(
              (v) => PROXY_PRESETS.includes(v) || isCidr(v),
              `must be an IP address, a CIDR range or one of ${PROXY_PRESETS.join(', ')}`,
            ),
        )
        .min(1),
    ],
    {
      error: (issue) =>
        issue.input === true
          ? `true is refused: it trusts the left-most X-Forwarded-For entry, which the client writes, so any sender could pass inbound.allowlist; ${TRUST_PROXY_HELP}`
          : `must be false, a hop count or a list of proxy addresses; ${TRUST_PROXY_HELP}`,
    },
  ),
);

export const serverSchema = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    port: port.default(8080),
    /** How the outside world reaches this daemon; used in printed curl lines and docs links. */
    publicBaseUrl: z.url().optional(),
    bodyLimitBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    /**
     * Which X-Forwarded-For entries to believe (the client IP used by inbound.allowlist): false (none,
     * the socket peer is the client), a hop count (the number of proxies in front; the entry they
     * appended is used), or the proxies' addresses / CIDR ranges (express "trust proxy" names
     * loopback, linklocal, uniquelocal too). `true` is refused: it takes the left-most entry, which the
     * client writes, so any sender could pass the allowlist.
     */
    trustProxy: trustProxySchema.default(false),
    /** How long SIGTERM waits for in-flight requests and sends before closing anyway. */
    shutdownGraceMs: positiveMs.default(10_000),
    /** How long the answer to a POST sent with an Idempotency-Key is kept and replayed for that key (docs/api.md). */
    idempotencyKeyHours: z.number().int().min(1).max(720).default(24),
  })
  .prefault({});

/** One read worker per core beyond the main thread's, at least one and at most four. */
function defaultReadWorkers(): number {
  return Math.min(4, Math.max(1, availableParallelism() - 1));
}

/** libpq's sslmode values borderd applies; libpq's prefer and allow are left out. */
const TLS_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;

/** A PostgreSQL connection URL: postgres:// or postgresql://, with the host and database in it. */
const postgresUrl = z
  .string()
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.pathname.length > 1;
    } catch {
      return false;
    }
  }, 'must be a PostgreSQL URL: postgres://user:password@host:5432/database')
  .refine(
    (v) => {
      const mode = URL.canParse(v) ? new URL(v).searchParams.get('sslmode') : null;
      return mode === null || (TLS_MODES as readonly string[]).includes(mode);
    },
    `takes sslmode ${TLS_MODES.join(', ')} (prefer and allow would fall back to plain text without saying so)`,
  );

export const databaseSchema = z
  .strictObject({
    /**
     * PostgreSQL instead of the SQLite file: postgres://user:password@host:5432/database (its query
     * may carry sslmode). Several nodes may share one database. Unset: SQLite at `path`.
     */
    url: postgresUrl.optional(),
    /** PostgreSQL connections this process keeps at most, how long an idle one lives, and how long a new one may take. */
    pool: z
      .strictObject({
        max: z.number().int().min(1).max(1000).default(10),
        idleTimeoutMs: z.number().int().min(0).max(MAX_TIMER_MS, MAX_TIMER_MESSAGE).default(10_000),
        connectTimeoutMs: positiveMs.default(5_000),
      })
      .prefault({}),
    /** TLS to PostgreSQL: libpq's sslmode names (verify-full checks the chain and the host name) and a CA file for a private authority; these win over the URL's sslmode and sslrootcert. */
    tls: z
      .strictObject({
        mode: z.enum(TLS_MODES).optional(),
        caFile: z.string().min(1).optional(),
      })
      .prefault({}),
    /** The SQLite file (the embedded default), when `url` is unset. */
    path: z.string().min(1).default('./data/borderd.db'),
    busyTimeoutMs: z.number().int().min(0).max(MAX_TIMER_MS, MAX_TIMER_MESSAGE).default(5000),
    /**
     * Commit durability (SQLite synchronous under WAL). full: every commit is fsynced before it returns,
     * so nothing acknowledged (a card-network 200, an API write) is lost to a power cut or OS crash.
     * normal: fewer fsyncs, faster writes, but those crashes can roll back the last commits.
     */
    synchronous: z.enum(['full', 'normal']).default('full'),
    /**
     * Writes from the API that arrive within this window share one transaction and one fsync (group
     * commit); each is answered once that commit returned. 0 commits on the next event-loop turn.
     */
    groupCommitWindowMs: z.number().int().min(0).max(100).default(5),
    /**
     * Worker threads that run the API's heavy reads (identity lists, the benchmark summary) on their
     * own read-only connections, so they do not hold the main thread that serves requests and
     * delivers webhooks. 0 runs them on the main thread. An in-memory database always does.
     */
    readWorkers: z.number().int().min(0).max(16).default(defaultReadWorkers()),
    /**
     * Benchmark summaries one organization may have running at once; one more is a 429. Each reads
     * every matching row on the read workers every organization shares, so without a cap one
     * organization's burst queues everyone's identity lists behind it.
     */
    summariesPerOrganization: z.number().int().min(1).max(100).default(2),
  })
  .prefault({});

export const logSchema = z
  .strictObject({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** auto: pretty lines only when stdout is a terminal; JSON lines otherwise. */
    pretty: z.enum(['auto', 'always', 'never']).default('auto'),
  })
  .prefault({});

export const authSchema = z
  .strictObject({
    tokenTtlSeconds: z.number().int().min(60).max(86_400).default(3600),
    issuer: z.string().min(1).default('borderd'),
    /**
     * Client secret checks (scrypt, 16 MB and tens of ms each on libuv's thread pool, which webhook
     * signing shares) run at most this many at once; 100 more wait, and one more is a 503. A flood
     * of token requests with made-up secrets then cannot take the whole pool. Half of them (rounded
     * down) are kept for clients issued a token before (docs/api.md).
     */
    secretChecksAtOnce: z.number().int().min(1).max(64).default(2),
    /**
     * Failed token requests (401) one client address may make per minute, refilled continuously; past
     * that its token requests are a 429 until a try has refilled, before any secret is checked. IPv6
     * addresses count by their /64. Successful requests cost nothing.
     */
    failedTokenRequestsPerMinute: z.number().int().min(1).max(100_000).default(20),
  })
  .prefault({});

export const securitySchema = z
  .strictObject({
    /** base64 of 32 bytes. When absent, a key file in the data directory is used (created once, mode 0600). */
    masterKey: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be base64 of exactly 32 bytes')
      .optional(),
    masterKeyFile: z.string().min(1).optional(),
  })
  .prefault({});

export const adminSchema = z
  .strictObject({
    /** Bearer token of the operator API under /admin/v1. When absent, one is generated into the data directory. */
    token: z.string().min(24, 'must be at least 24 characters').optional(),
    /**
     * On the first start (no organization yet), create a "Development" organization with one API
     * client and print its secret once: a developer's quick start. Off in production, where an
     * operator creates organizations and clients with the CLI and no secret goes to the log stream.
     */
    bootstrapOrganization: z.boolean().default(true),
  })
  .prefault({});

export const webhooksSchema = z
  .strictObject({
    allowHttp: z.boolean().default(true),
    allowPrivateNetworks: z.boolean().default(true),
    maxUrlLength: z.number().int().min(64).max(8192).default(2048),
    /** Webhooks one organization may have (deleted ones do not count): each event writes a delivery row per webhook, in the writer's transaction. */
    maxPerOrganization: z.number().int().min(1).max(1000).default(50),
    /**
     * After a rotation, how long the replaced webhook secret keeps signing beside the new one, and how
     * long GET …/settings/public-key?keyId= still answers for the replaced RSA key (seconds; 0 retires
     * at once).
     */
    rotationOverlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .default(86_400),
    /**
     * Events an organization's own token may queue by replay per hour, on each node (a token bucket
     * refilled continuously); a replay past what is left is a 429 with Retry-After before anything
     * is queued. The operator's CLI and admin API are not counted.
     */
    replayEventsPerHour: z.number().int().min(1).max(10_000_000).default(20_000),
    /** Test events an organization's own token may send per minute, on each node; one more is a 429 with Retry-After. */
    testEventsPerMinute: z.number().int().min(1).max(100_000).default(10),
    /** Bytes of a test event's `data` (as JSON); a larger one is a 413 test_event_too_large. */
    testEventMaxDataBytes: z
      .number()
      .int()
      .min(256)
      .max(512 * 1024)
      .default(16 * 1024),
  })
  .prefault({});

export const deliverySchema = z
  .strictObject({
    timeoutMs: positiveMs.default(10_000),
    /** Delay before each attempt, in seconds; attempt 1 is the first entry. The last failed attempt disables the webhook. */
    retryScheduleSeconds: z.array(retryDelaySeconds).min(1).default([0, 5, 300, 1800, 7200, 18000, 36000, 36000]),
    jitter: z.number().min(0).max(0.5).default(0.2),
    pollIntervalMs: positiveMs.default(500),
    leaseMs: positiveMs.default(60_000),
    /** Sends in flight per process: a send mostly waits on a socket, so this is sized for sockets, not CPU. */
    concurrency: z.number().int().min(1).max(4096).default(256),
    perEndpointConcurrency: z.number().int().min(1).max(256).default(4),
    /** Sends in flight of one organization, from all nodes together: what one tenant may hold of the process's slots. */
    perOrganizationConcurrency: z.number().int().min(1).max(4096).default(64),
    /** A send that takes this long or longer (answered or not) makes its endpoint slow until a quicker one: slow endpoints give way. */
    slowAfterMs: positiveMs.default(1000),
  })
  .prefault({});

export const inboundSchema = z
  .strictObject({
    /** Path segment of the card-network endpoint: POST /v1/webhooks/<pathName>. */
    pathName: z
      .string()
      .regex(/^[a-z0-9-]+$/)
      .default('card-network'),
    /** CIDR ranges (IPv4 or IPv6) allowed to post; empty means no IP check. */
    allowlist: z
      .array(z.string().refine((v) => isCidr(v), 'must be an IPv4 or IPv6 address or CIDR range, e.g. 203.0.113.0/24'))
      .default([]),
    /** Header set by a TLS terminator after verifying the client certificate, and the value it must hold. */
    clientCertHeader: z.object({ name: z.string().min(1), value: z.string().min(1) }).optional(),
    /**
     * Let anyone post when the daemon listens beyond loopback with neither check above. Off, such an
     * endpoint answers 503 sender_check_required and stores nothing, and the start says so in one line.
     */
    allowAnySender: z.boolean().default(false),
    /** The largest notification body accepted (a 413 past it); a real one is a few KiB of JWE. */
    bodyLimitBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(64 * 1024),
    /**
     * Notifications for an unmapped ica one source address (an IPv6 one by its /64) may have stored at
     * once; one more is a 429 until they are mapped, purged or deleted by retention. With
     * allowAnySender (an endpoint open to anyone), notifications for mapped icas count too.
     */
    maxUnmatchedPerSender: z.number().int().min(1).max(10_000_000).default(1000),
    /** ica -> organization id. */
    icaOrganizations: z.record(z.string(), z.string()).default({}),
    /** Delays in seconds before each decryption retry of a key-related failure; after the last, the event is failed (dead letter). */
    decryptRetrySeconds: z.array(retryDelaySeconds).default([10, 60, 300, 1800]),
    /** How often the decryption worker looks for due rows written by other processes. */
    pollIntervalMs: positiveMs.default(1000),
    /** Rows decrypted per worker pass. */
    batchSize: z.number().int().min(1).max(1000).default(50),
  })
  .prefault({});

export const accountsSchema = z
  .strictObject({
    /** Bring back the deprecated Account fields type, pfi and web3Provider (removed on 2026-09-01). */
    legacyFields: z.boolean().default(false),
  })
  .prefault({});

export const integrationKinds = ['company-credentials', 'pfi-client-credentials', 'partner-key'] as const;

const integrationProviderSchema = z.strictObject({
  kind: z.enum(integrationKinds),
  /** Adds Deprecation and Sunset headers to PUT /v1/organizations/integrations/<name>. */
  deprecated: z.boolean().default(false),
  deprecatedSince: z.iso.date().default('2026-01-01'),
  sunset: z.iso.date().optional(),
  /** Where the adapter calls the provider. Absent: credentials are stored without a provider call. */
  baseUrl: z.url().optional(),
});
export type IntegrationProviderConfig = z.infer<typeof integrationProviderSchema>;

export const integrationsSchema = z
  .strictObject({
    /** Provider path name (PUT /v1/organizations/integrations/<name>) -> its kind and flags. */
    providers: z
      .record(z.string().regex(/^[a-z0-9-]+$/, 'provider names are lowercase letters, digits and dashes'), integrationProviderSchema)
      .default({
        'provider-a': { kind: 'company-credentials', deprecated: true, deprecatedSince: '2026-01-01', sunset: '2027-01-01' },
        'provider-b': { kind: 'pfi-client-credentials', deprecated: false, deprecatedSince: '2026-01-01' },
        'provider-c': { kind: 'partner-key', deprecated: true, deprecatedSince: '2026-01-01', sunset: '2027-01-01' },
      }),
    timeoutMs: positiveMs.default(10_000),
  })
  .prefault({});

export const networkIds = ['POLYGON', 'ETHEREUM', 'TRON', 'BASE', 'OPTIMISM', 'BITCOIN', 'SOLANA', 'CELO'] as const;

export const networkSchema = z
  .strictObject({
    /** Two-letter codes of the countries where deposits are available. */
    depositCountries: z.array(countryCode).default(['BR', 'CO', 'MX', 'US']),
    /** Networks the organization can use and the assets on each. */
    networks: z
      .array(z.strictObject({ network: z.enum(networkIds), assets: z.array(z.string().regex(/^[A-Z0-9]{2,12}$/)).min(1) }))
      .default([
        { network: 'ETHEREUM', assets: ['USDC', 'USDT'] },
        { network: 'POLYGON', assets: ['USDC', 'USDT'] },
        { network: 'SOLANA', assets: ['USDC'] },
        { network: 'TRON', assets: ['USDT'] },
      ]),
    /** Deprecation of GET /v1/deposits/countries. */
    countriesDeprecatedSince: z.iso.date().default('2026-01-01'),
    countriesSunset: z.iso.date().default('2027-01-01'),
  })
  .prefault({});

export const eventStreamSchema = z
  .strictObject({
    /** A `: heartbeat` comment this often keeps proxies from closing an idle stream and lets clients detect a dead one. */
    heartbeatMs: positiveMs.default(15_000),
    /** How often an open stream looks for events written by other processes (in-process writes wake it at once). */
    pollIntervalMs: positiveMs.default(400),
    /** Events sent per query while catching up. */
    batchSize: z.number().int().min(1).max(1000).default(100),
    /** Streams one API client may hold open on this daemon at once; one more is a 429 too_many_streams. */
    maxStreamsPerClient: z.number().int().min(1).max(1000).default(10),
  })
  .prefault({});

export const retentionSchema = z
  .strictObject({
    /** When the retention job runs (cron, local time of the host); it also runs with `borderd outbox prune`. */
    schedule: z
      .string()
      .refine((v) => isCronExpression(v), 'must be a cron expression, e.g. "17 3 * * *"')
      .default('17 3 * * *'),
    /** Delivered deliveries (and their attempts) older than this are deleted. */
    deliveredDays: z.number().int().min(1).default(30),
    /** Events older than this, with nothing pending, are deleted with everything that refers to them. */
    eventDays: z.number().int().min(1).default(90),
    /** Card-network notifications decrypted or failed (dead letter) this long ago are deleted, held and replaced copies with them. */
    inboundDays: z.number().int().min(1).default(30),
    /** Card-network notifications for an ica still unmapped after this long are deleted. */
    unmatchedInboundDays: z.number().int().min(1).default(7),
    /** Test events (type `test.…`) older than this, with nothing pending, are deleted like old events. */
    testEventHours: z
      .number()
      .int()
      .min(1)
      .max(90 * 24)
      .default(24),
    /** Rows deleted per transaction, so the job never holds the write lock for long. */
    batchSize: z.number().int().min(100).max(100_000).default(5000),
  })
  .prefault({});

export const nodesSchema = z
  .strictObject({
    /** How often this process says it is alive (a row in the database), and looks for dead ones whose deliveries to take back. */
    heartbeatMs: positiveMs.default(2_000),
    /**
     * A process not heard from for this long is dead: its claimed deliveries are taken back at once
     * instead of when their leases end (delivery.leaseMs). A process on the same host is known dead
     * sooner, by its pid.
     */
    deadAfterMs: positiveMs.default(10_000),
  })
  .prefault({})
  .refine((n) => n.deadAfterMs >= 3 * n.heartbeatMs, {
    message: 'deadAfterMs must be at least three heartbeats (3 × heartbeatMs)',
    path: ['deadAfterMs'],
  });

export const metricsSchema = z
  .strictObject({
    /** GET /metrics in the Prometheus text format. */
    enabled: z.boolean().default(true),
    /** A port of its own for /metrics (config/production.yaml: 9464). Unset: the API's port serves it. */
    port: port.optional(),
    /** The address the metrics port listens on: loopback unless a scraper elsewhere must reach it. */
    host: z.string().min(1).default('127.0.0.1'),
    /**
     * Backlog gauges count at most this many index entries per organization (outbox) or per state
     * (inbound) at each scrape, so a scrape's cost stays bounded whatever the backlog; past it the
     * gauge shows this number, and the oldest-pending age still tells how far behind it is.
     */
    backlogCountLimit: z.number().int().min(1).max(10_000_000).default(100_000),
  })
  .prefault({});

export const alertsSchema = z
  .strictObject({
    /**
     * Where operator alerts are sent (a webhook disabled, an outbox backlog too old, inbound
     * decryption failures): a webhook of borderd's own operator organization, signed, retried and
     * recorded like every delivery. Each alert body has a top-level `text`, so a Slack-compatible
     * incoming webhook takes it as it is. Unset: alerts are warning lines in the log only. A user or
     * password in it is refused at startup: deliveries carry no basic auth, so it would be dropped
     * without a word; a secret path or query parameter (as Slack's URLs have) is kept.
     */
    webhookUrl: z
      .url()
      .refine((url) => !URL.canParse(url) || (new URL(url).username === '' && new URL(url).password === ''), {
        message:
          'must not carry a user or password: deliveries are signed (webhook-signature, x-signature) and send no basic auth; put a secret in the URL path, or verify the signature at the target',
      })
      .optional(),
    /** An organization whose oldest pending delivery is older than this raises an alert (once, until it is under half of it again). */
    backlogAgeSeconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(900),
    /** How often the outbox backlogs are checked against backlogAgeSeconds. */
    checkIntervalMs: positiveMs.default(60_000),
  })
  .prefault({});

export const tracingSchema = z
  .strictObject({
    /**
     * OTLP/HTTP endpoint spans are exported to (a collector: http://127.0.0.1:4318/v1/traces). Unset:
     * no tracing, and the OpenTelemetry SDK is not even loaded.
     */
    otlpEndpoint: z.url().optional(),
    /** The `service.name` of borderd's spans. */
    serviceName: z.string().min(1).default('borderd'),
  })
  .prefault({});

export const configSchema = z
  .object({
    /**
     * Where borderd keeps its own files (master.key and admin.token, unless security.masterKey and
     * admin.token are given): the SQLite file's folder when unset, and ./data with PostgreSQL.
     */
    dataDir: z.string().min(1).optional(),
    server: serverSchema,
    database: databaseSchema,
    log: logSchema,
    auth: authSchema,
    security: securitySchema,
    admin: adminSchema,
    webhooks: webhooksSchema,
    delivery: deliverySchema,
    inbound: inboundSchema,
    accounts: accountsSchema,
    integrations: integrationsSchema,
    network: networkSchema,
    eventStream: eventStreamSchema,
    retention: retentionSchema,
    nodes: nodesSchema,
    metrics: metricsSchema,
    alerts: alertsSchema,
    tracing: tracingSchema,
  })
  .superRefine((c, zctx) => {
    // The client-certificate header is set by a TLS terminator in front; borderd believes it only from
    // that terminator (server.trustProxy), since a client reaching the port itself could send it too.
    if (c.inbound.clientCertHeader && (c.server.trustProxy === false || c.server.trustProxy === 0)) {
      zctx.addIssue({
        code: 'custom',
        path: ['inbound', 'clientCertHeader'],
        message:
          'needs server.trustProxy to name the TLS terminator that sets this header (its addresses, or a hop count when nothing else can reach this port): the header is believed only from it, since any client could send it',
      });
    }
  });

export type Config = z.infer<typeof configSchema>;
export type DatabaseConfig = Config['database'];
export type ConfigInput = z.input<typeof configSchema>;

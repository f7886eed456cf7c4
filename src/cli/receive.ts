/**
 * `borderd receive`: a sidecar that verifies deliveries and forwards them to a local app (listen
 * mode), or pulls them from a remote borderd's event stream (tunnel mode); `receive replay` resends
 * a captured event. It never opens the daemon's database: its state is the capture log.
 *
 * @module cli/receive
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { CaptureLog } from '../receiver/capture-log.js';
import { CaptureLogInUse, lockCaptureLog, type CaptureLock } from '../receiver/capture-lock.js';
import { createReporter, type Reporter } from '../receiver/console-report.js';
import { Forwarder, parseHeaderOptions } from '../receiver/forwarder.js';
import { startListener, type Verifier } from '../receiver/listen.js';
import { Relay } from '../receiver/relay.js';
import { StreamError, TunnelClient } from '../receiver/tunnel.js';
import { EVENT_TYPES } from '../verify/events.js';
import { fetchPublicKey, type ClientCredentials } from '../verify/public-key.js';
import { toKeyList, verifyWebhook } from '../verify/signature.js';
import { parseTimeOption } from './time-option.js';
import { DEFAULT_TOLERANCE_SECONDS, needsStandardWebhooks, secretKeys, verifyStandardWebhook } from '../verify/standard-webhooks.js';
import { isRefusedByBorderd } from '../verify/errors.js';
import { MAX_TIMER_MS, type Config } from '../config/schema.js';
import { loadConfig } from '../config/load.js';
import { startTracing } from '../tracing/sdk.js';
import { CliExit, listenFailure, reportError, wholeNumber } from './context.js';

interface ReceiveArgs {
  'forward-to'?: string;
  route?: string[];
  tunnel?: string;
  port: number;
  host: string;
  'public-key'?: string;
  'public-key-url'?: string;
  'webhook-secret'?: string;
  'require-standard-webhooks': boolean;
  'allow-x-signature-only': boolean;
  tolerance: number;
  'client-id'?: string;
  'client-secret'?: string;
  header: string[];
  'pass-header': string[];
  events?: string;
  dedupe: boolean;
  'capture-db': string;
  'heartbeat-timeout': number;
  'forward-timeout': number;
  since?: string;
  config?: string;
  'otlp-endpoint'?: string;
  json: boolean;
}

interface ReplayArgs {
  eventId: string;
  'capture-db': string;
  'forward-to'?: string;
  header: string[];
  'forward-timeout': number;
  json: boolean;
}

const DEFAULT_CAPTURE_DB = './borderd-receive.db';

function sharedOptions<T>(y: Argv<T>) {
  return y
    .option('capture-db', {
      type: 'string',
      default: DEFAULT_CAPTURE_DB,
      describe: 'SQLite file of captured events (dedupe, replay, tunnel cursor)',
    })
    .option('header', {
      alias: 'H',
      type: 'string',
      array: true,
      default: [] as string[],
      describe: 'extra header for the local app, "Name: value" (repeatable)',
    })
    .option('pass-header', {
      type: 'string',
      array: true,
      default: [] as string[],
      describe: "an unsigned header of the sender's request to pass on to the app as received (repeatable; none by default)",
    })
    .option('forward-timeout', {
      type: 'number',
      default: 30_000,
      coerce: wholeNumber('forward-timeout', 1, MAX_TIMER_MS),
      describe: 'ms to wait for the local app',
    })
    .option('json', { type: 'boolean', default: false, describe: 'one JSON object per line' });
}

function parseEvents(raw: string | undefined): string[] {
  if (!raw) return [];
  const types = raw
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw new CliExit(2, `--events: unknown event type(s) ${unknown.join(', ')}; known: ${EVENT_TYPES.join(', ')}`);
  return types;
}

/** --forward-to of listen and tunnel mode and of replay: one check, one line, exit 2. */
function forwardTarget(raw: string): string {
  if (!/^https?:\/\//.test(raw) || !URL.canParse(raw)) throw new CliExit(2, '--forward-to must be an http(s) URL');
  return raw;
}

/**
 * --route TYPE=URL, repeatable: events of TYPE (exact, or a prefix ending in `*`) go to URL; the
 * first route that takes a type wins, and --forward-to takes the rest.
 */
function routesOf(values: readonly string[] | undefined): { pattern: string; url: string }[] {
  return (values ?? []).map((raw) => {
    const i = raw.indexOf('=');
    const pattern = i > 0 ? raw.slice(0, i).trim() : '';
    const star = pattern.indexOf('*');
    if (!pattern || /[\s=]/.test(pattern) || (star !== -1 && star !== pattern.length - 1))
      throw new CliExit(2, `--route "${raw}" is not TYPE=URL (a type, or a prefix ending in *)`);
    const url = raw.slice(i + 1);
    if (!/^https?:\/\//.test(url) || !URL.canParse(url)) throw new CliExit(2, `--route "${raw}": URL must be an http(s) URL`);
    return { pattern, url };
  });
}

/** The same URL written two ways (`http://h:80` and `http://h/`) is the same target. */
function sameTarget(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) ? new URL(a).href === new URL(b).href : a === b;
}

function credentialsOf(args: ReceiveArgs, flag: string): ClientCredentials {
  // Env vars keep the secret out of `ps` output; flags win when both are given.
  const clientId = args['client-id'] ?? process.env.BORDERD_CLIENT_ID;
  const clientSecret = args['client-secret'] ?? process.env.BORDERD_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new CliExit(2, `${flag} needs --client-id and --client-secret (or BORDERD_CLIENT_ID / BORDERD_CLIENT_SECRET)`);
  return { clientId, clientSecret };
}

function headersOf(values: readonly string[]): Record<string, string> {
  try {
    return parseHeaderOptions(values);
  } catch (err) {
    throw new CliExit(2, (err as Error).message);
  }
}

function staticKeys(file: string | undefined) {
  if (!file) return undefined;
  try {
    return toKeyList(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliExit(2, `--public-key ${file}: ${(err as Error).message}`);
  }
}

/**
 * How listen mode checks x-signature: a key file, or the key fetched from a borderd. The key is
 * fetched once before listening: credentials borderd refuses stop the command (exit 1), as they stop
 * a tunnel, instead of a receiver that answers every delivery 503; a borderd that cannot be reached
 * yet is said once, and each delivery tries again.
 */
async function rsaVerifier(args: ReceiveArgs, keys: ReturnType<typeof staticKeys>, reporter: Reporter): Promise<Verifier> {
  if (keys) return (raw, headers) => verifyWebhook(raw, headers, keys);
  if (args['public-key-url']) {
    const source = fetchPublicKey(args['public-key-url'], credentialsOf(args, '--public-key-url'));
    try {
      await source.get();
    } catch (err) {
      if (isRefusedByBorderd(err))
        throw new CliExit(
          1,
          `--public-key-url ${args['public-key-url']}: ${(err as Error).message}; check --client-id and --client-secret`,
        );
      reporter.error(`--public-key-url: ${(err as Error).message}; deliveries are answered 503 until the key can be fetched`);
    }
    return (raw, headers) => source.verify(raw, headers);
  }
  throw new CliExit(
    2,
    'listen mode needs --public-key FILE or --public-key-url BASE_URL (with --client-id/--client-secret), or --webhook-secret',
  );
}

/** The webhook secret of listen mode: the flag, else BORDERD_WEBHOOK_SECRET (which keeps it out of `ps`); checked here, exit 2. */
function webhookSecretOf(args: ReceiveArgs): string | undefined {
  const secret = args['webhook-secret'] ?? (process.env.BORDERD_WEBHOOK_SECRET || undefined);
  if (args.tunnel && args['webhook-secret'] !== undefined)
    throw new CliExit(2, '--webhook-secret is for listen mode: the event stream signs with x-signature alone');
  if (args.tunnel) return undefined;
  if (args['require-standard-webhooks'] && !secret)
    throw new CliExit(2, '--require-standard-webhooks needs --webhook-secret (or BORDERD_WEBHOOK_SECRET): the webhook’s whsec_… secret');
  if (args['allow-x-signature-only'] && !secret)
    throw new CliExit(2, '--allow-x-signature-only needs --webhook-secret (or BORDERD_WEBHOOK_SECRET): the webhook’s whsec_… secret');
  if (args['allow-x-signature-only'] && args['require-standard-webhooks'])
    throw new CliExit(2, '--allow-x-signature-only and --require-standard-webhooks contradict each other: give one');
  if (args['allow-x-signature-only'] && args['public-key'] === undefined && args['public-key-url'] === undefined)
    throw new CliExit(2, '--allow-x-signature-only needs --public-key or --public-key-url to verify x-signature with');
  if (secret === undefined) return undefined;
  try {
    secretKeys(secret);
  } catch (err) {
    throw new CliExit(2, `--webhook-secret: ${(err as Error).message}`);
  }
  return secret;
}

/**
 * How listen mode verifies: with a webhook secret, Standard Webhooks (signature and replay window)
 * for every delivery, so stripping its headers cannot skip the window; with
 * --allow-x-signature-only, a delivery with none of those headers is checked by x-signature and the
 * public key instead. Without a secret, x-signature with the public key.
 */
async function listenVerifier(
  args: ReceiveArgs,
  keys: ReturnType<typeof staticKeys>,
  secret: string | undefined,
  reporter: Reporter,
): Promise<Verifier> {
  const hasKey = keys !== undefined || args['public-key-url'] !== undefined;
  const rsa = hasKey || secret === undefined ? await rsaVerifier(args, keys, reporter) : undefined;
  if (secret === undefined) return rsa!;
  const options = { toleranceSeconds: args.tolerance };
  return (raw, headers) =>
    rsa && !needsStandardWebhooks(headers, args['allow-x-signature-only'])
      ? rsa(raw, headers)
      : verifyStandardWebhook(raw, headers, secret, options);
}

/** The capture log's lock, or one line naming --capture-db and exit 2 when another receiver holds it. */
function lockFor(captureDb: string): CaptureLock {
  try {
    return lockCaptureLog(captureDb);
  } catch (err) {
    if (err instanceof CaptureLogInUse) throw new CliExit(2, err.message);
    throw err;
  }
}

/**
 * The receiver's tracing settings: --otlp-endpoint, else BORDERD_TRACING_OTLP_ENDPOINT, else the
 * tracing section of --config (the daemon's file serves as it is). Of the environment only
 * BORDERD_TRACING_* is read: a daemon's other settings there neither apply to the receiver nor can
 * refuse its start. Its spans are `<tracing.serviceName>-receive` (borderd-receive), told apart
 * from the daemon's in a trace.
 */
function tracingOf(args: ReceiveArgs): Config['tracing'] {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('BORDERD_TRACING_')));
  const { tracing } = loadConfig({ file: args.config, env, flags: { 'tracing.otlpEndpoint': args['otlp-endpoint'] } });
  return { ...tracing, serviceName: `${tracing.serviceName}-receive` };
}

/** Resolves on SIGINT/SIGTERM. */
const untilSignal = () =>
  new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });

async function runReceive(args: ReceiveArgs): Promise<void> {
  const routeArgs = routesOf(args.route);
  if (!args['forward-to'] && routeArgs.length === 0)
    throw new CliExit(2, 'receive needs --forward-to URL (the local app) or --route TYPE=URL');
  const target = args['forward-to'] === undefined ? undefined : forwardTarget(args['forward-to']);
  if (args.since !== undefined && !args.tunnel) throw new CliExit(2, '--since is for --tunnel (listen mode receives what borderd sends)');
  const since = args.since === undefined ? undefined : parseTimeOption('since', args.since);
  const eventTypes = parseEvents(args.events);
  const extraHeaders = headersOf(args.header);
  const keys = staticKeys(args['public-key']);
  const secret = webhookSecretOf(args);
  const tracing = tracingOf(args);
  // Every argument is checked before the capture log is opened, so a refused command leaves no file behind.
  const reporter = createReporter(args.json);
  const mode: { tunnel: string; credentials: ClientCredentials } | { verify: Verifier } = args.tunnel
    ? { tunnel: args.tunnel, credentials: credentialsOf(args, '--tunnel') }
    : { verify: await listenVerifier(args, keys, secret, reporter) };
  const lock = lockFor(args['capture-db']);
  const captureIsNew = !existsSync(args['capture-db']);
  let capture: CaptureLog;
  try {
    capture = new CaptureLog(args['capture-db']);
  } catch (err) {
    lock.release();
    throw err;
  }
  // Set when the run ends before anything could be recorded: a capture log it created goes with it.
  let recordedNothing = false;
  const checkpoints = capture.checkpointInBackground((err) =>
    reporter.error(`capture log: background checkpoints stopped, SQLite checkpoints on write again: ${err.message}`),
  );
  const forwarder = target === undefined ? undefined : new Forwarder(target, extraHeaders, args['forward-timeout']);
  const routes = routeArgs.map((r) => ({ pattern: r.pattern, forwarder: new Forwarder(r.url, extraHeaders, args['forward-timeout']) }));
  const relay = new Relay({ forwarder, routes, capture, reporter, dedupe: args.dedupe, eventTypes });
  // Listened for before the receiver announces itself: a SIGTERM sent on seeing "listening on" could
  // otherwise arrive before the listener existed and end the process without closing the capture log.
  const stopped = untilSignal();
  // Started before anything is received, and flushed last: the spans of the final deliveries are exported.
  const stopTracing = await startTracing(tracing, { info: (fields, message) => reporter.note(message, fields) });
  try {
    if ('tunnel' in mode) {
      const tunnel = new TunnelClient({
        baseUrl: mode.tunnel,
        credentials: mode.credentials,
        relay,
        capture,
        reporter,
        publicKeys: keys,
        since,
        heartbeatTimeoutMs: args['heartbeat-timeout'],
        captureDbPath: args['capture-db'],
      });
      try {
        const done = tunnel.start().catch((err: unknown) => {
          throw err instanceof StreamError ? new CliExit(1, err.message) : err;
        });
        await Promise.race([done, stopped]);
        await tunnel.stop();
        await done;
      } finally {
        // Refused credentials, an unreachable borderd, or stopped before the stream ever answered:
        // the tunnel wrote nothing, not even a cursor (that comes with the stream's first message).
        recordedNothing = tunnel.connections === 0;
      }
      return;
    }
    const listener = await startListener({
      host: args.host,
      port: args.port,
      verify: mode.verify,
      relay,
      passHeaders: args['pass-header'],
      onRejected: (reason, eventId, status) =>
        reporter.event({
          time: new Date().toISOString(),
          eventId: eventId ?? '-',
          eventType: '-',
          outcome: 'rejected',
          status,
          target: null,
          latencyMs: null,
          detail: reason,
        }),
    }).catch((err: unknown) => {
      recordedNothing = true;
      throw listenFailure(err, args.host, args.port, '--host, --port');
    });
    const where = [
      ...routes.map((r) => `${r.pattern} to ${r.forwarder.displayTarget}`),
      ...(forwarder ? [`${routes.length ? 'the rest' : ''} to ${forwarder.displayTarget}`.trim()] : []),
    ];
    reporter.note(`listening on ${listener.url}, forwarding ${where.join(', ')}`, {
      url: listener.url,
      ...(forwarder && { forwardTo: forwarder.displayTarget }),
      ...(routes.length > 0 && { routes: routes.map((r) => ({ type: r.pattern, forwardTo: r.forwarder.displayTarget })) }),
    });
    await stopped;
    await listener.close();
  } finally {
    await forwarder?.close();
    for (const r of routes) await r.forwarder.close();
    await checkpoints?.close();
    capture.close();
    lock.release();
    // Refused before anything was received: a capture log this run made is not left behind (one
    // that was there before is kept, whatever happened).
    if (recordedNothing && captureIsNew)
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${args['capture-db']}${suffix}`, { force: true });
    await stopTracing();
  }
}

async function runReplay(args: ReplayArgs): Promise<void> {
  const otherTarget = args['forward-to'] === undefined ? undefined : forwardTarget(args['forward-to']);
  const extraHeaders = headersOf(args.header);
  // Replay reads what listen or a tunnel captured: a path with no file is a mistake, not an empty log to create.
  if (!existsSync(args['capture-db']))
    throw new CliExit(1, `no capture log at ${args['capture-db']}: give --capture-db PATH (the file borderd receive wrote)`);
  const capture = new CaptureLog(args['capture-db']);
  try {
    const captured = capture.get(args.eventId);
    if (!captured) throw new CliExit(1, `event ${args.eventId} is not in ${args['capture-db']}`);
    const target = otherTarget ?? captured.target;
    if (!target) throw new CliExit(2, `event ${args.eventId} was never forwarded; give --forward-to URL`);
    // Decision: the row keeps the event's own target and its last forward there, which a plain
    // replay and dedupe read. A replay to another target (a staging app) changes neither, or one
    // test against staging would redirect later replays and undo the dedupe of an event the app
    // already took; a replay to the event's own target is a delivery to it and is recorded.
    const toOwnTarget = captured.target !== null && sameTarget(target, captured.target);
    const forwarder = new Forwarder(target, extraHeaders, args['forward-timeout']);
    try {
      const result = await forwarder.forward(captured.body, { ...captured.headers, 'x-borderd-replay': 'true' });
      const at = new Date().toISOString();
      if (toOwnTarget) capture.recordForward(captured.eventId, result.status, at);
      createReporter(args.json).event({
        time: at,
        eventId: captured.eventId,
        eventType: captured.eventType,
        outcome: 'replayed',
        status: result.status,
        target: forwarder.displayTarget,
        latencyMs: result.latencyMs,
        ...(result.error ? { detail: result.error } : {}),
      });
      if (result.status < 200 || result.status >= 300) process.exitCode = 1;
    } finally {
      await forwarder.close();
    }
  } finally {
    capture.close();
  }
}

const guarded =
  <A extends { json: boolean }>(fn: (args: A) => Promise<void>) =>
  async (args: A): Promise<void> => {
    try {
      await fn(args);
    } catch (err) {
      process.exitCode = reportError(err, args.json);
    }
  };

export const receiveCommand: CommandModule<object, ReceiveArgs> = {
  builder: (y) =>
    sharedOptions(y)
      .command<ReplayArgs>(
        'replay <eventId>',
        'Resend a captured event to its target (or --forward-to)',
        (c) =>
          c.positional('eventId', { type: 'string', demandOption: true }).option('forward-to', {
            type: 'string',
            describe: 'another target URL (a try: the capture log keeps the original target and status)',
          }),
        guarded(runReplay),
      )
      // The options of listen and tunnel mode; global: false keeps them out of `receive replay`.
      .option('forward-to', { type: 'string', global: false, describe: 'URL of the local app (events no --route takes)' })
      .option('route', {
        type: 'string',
        array: true,
        global: false,
        describe: 'TYPE=URL: forward events of TYPE (or a prefix ending in *) to URL; repeatable, first match wins',
      })
      .option('tunnel', {
        type: 'string',
        global: false,
        describe: 'base URL of a remote borderd: follow its event stream instead of listening',
      })
      .option('port', {
        type: 'number',
        default: 4242,
        global: false,
        coerce: wholeNumber('port', 0, 65535),
        describe: 'listen port (0 picks a free one)',
      })
      .option('host', { type: 'string', default: '127.0.0.1', global: false, describe: 'listen address' })
      .option('public-key', { type: 'string', global: false, describe: 'PEM file of the organization public key' })
      .option('public-key-url', {
        type: 'string',
        global: false,
        describe: 'base URL of borderd to fetch the key from (GET /v1/notifications/webhooks/settings/public-key)',
      })
      .option('webhook-secret', {
        type: 'string',
        global: false,
        describe:
          "the webhook's whsec_… secret (or BORDERD_WEBHOOK_SECRET): every delivery must carry a valid webhook-signature within the timestamp tolerance",
      })
      .option('require-standard-webhooks', {
        type: 'boolean',
        default: false,
        global: false,
        describe: 'refuse deliveries without webhook-id / webhook-timestamp / webhook-signature (the default with the secret)',
      })
      .option('allow-x-signature-only', {
        type: 'boolean',
        default: false,
        global: false,
        describe:
          'with the secret and a public key: also accept a delivery with x-signature alone (no replay window), for a sender not yet sending webhook-* headers',
      })
      .option('tolerance', {
        type: 'number',
        default: DEFAULT_TOLERANCE_SECONDS,
        global: false,
        coerce: wholeNumber('tolerance', 1, 86_400),
        describe: 'seconds webhook-timestamp may be from this clock, either way; an older delivery is refused as a replay',
      })
      .option('client-id', { type: 'string', global: false, describe: 'API client id (or BORDERD_CLIENT_ID)' })
      .option('client-secret', { type: 'string', global: false, describe: 'API client secret (or BORDERD_CLIENT_SECRET)' })
      .option('events', { type: 'string', global: false, describe: 'forward only these types, comma-separated' })
      .option('dedupe', {
        type: 'boolean',
        default: true,
        global: false,
        describe: 'answer a repeated event 200 without forwarding it again (--no-dedupe)',
      })
      .option('heartbeat-timeout', {
        type: 'number',
        default: 45_000,
        global: false,
        coerce: wholeNumber('heartbeat-timeout', 1, MAX_TIMER_MS),
        describe: 'tunnel: reconnect after this many ms without data',
      })
      .option('otlp-endpoint', {
        type: 'string',
        global: false,
        describe:
          "OTLP/HTTP collector for the receiver's spans (tracing.otlpEndpoint, BORDERD_TRACING_OTLP_ENDPOINT); each delivery's span continues its traceparent",
      })
      .option('config', {
        type: 'string',
        global: false,
        describe: "YAML config file whose tracing section the receiver uses (the daemon's file will do)",
      })
      .option('since', {
        type: 'string',
        global: false,
        describe:
          'tunnel: replay the events created since TIME (ISO 8601, or 30m / 2h / 7d back); without it a new tunnel starts with new events and a known one resumes from its capture log',
      }) as unknown as Argv<ReceiveArgs>,
  handler: guarded(runReceive),
};

/**
 * The logger: pino, with every sensitive key censored at any depth of a logged object, writing
 * synchronously to stdout (or pretty lines on a terminal when pino-pretty is installed).
 *
 * @module logging/logger
 */
import { createRequire } from 'node:module';
import { pino, type Logger, type LoggerOptions } from 'pino';
import { ConfigError } from '../config/load.js';
import { PII_FIELDS } from '../domain/pii-redaction.js';

export type { Logger };

/**
 * Keys whose values never reach a log line, wherever they sit in a logged object: secrets and
 * credentials (a new one is added here), and identity PII, which comes from the API's masking rules
 * (src/domain/pii-redaction.ts), so a field masked for redacted tokens is never logged either.
 */
const SENSITIVE_KEYS = new Set([
  'authorization',
  'cookie',
  'x-admin-token',
  'clientSecret',
  'apiSecret',
  'apiKey',
  'accessToken',
  'privateKey',
  'masterKey',
  'password',
  'secret',
  'credentials',
  'companyId',
  ...PII_FIELDS,
]);

const CENSOR = '[redacted]';
/** Deeper than this a logged object is cut off, so a cycle or a huge structure cannot stall a log call. */
const MAX_DEPTH = 10;

const isPlainObject = (v: object): v is Record<string, unknown> => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * A copy of `value` with every sensitive key's value censored, at any depth; untouched objects are
 * returned as they are, so a line with nothing to hide costs one walk and no allocation. pino's own
 * `redact` needs one wildcard path per depth, and the dozens that identity PII four to six levels
 * down would take cost far more on every request line than this walk, which has no depth gaps.
 */
export function redactSensitive(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const r = redactSensitive(value[i], depth + 1);
      if (r !== value[i]) (out ??= value.slice())[i] = r;
    }
    return out ?? value;
  }
  if (!isPlainObject(value)) return value; // errors, buffers, dates: their serializers decide
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const v = value[key];
    const r = SENSITIVE_KEYS.has(key) ? (v === undefined || v === null ? v : CENSOR) : redactSensitive(v, depth + 1);
    if (r !== v) (out ??= { ...value })[key] = r;
  }
  return out ?? value;
}

export interface LogOptions {
  level: string;
  pretty: 'auto' | 'always' | 'never';
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: LogOptions): Logger {
  const base: LoggerOptions = {
    level: opts.level,
    formatters: { log: (obj) => redactSensitive(obj) as Record<string, unknown> },
    // Serializers run after formatters.log: an error's own fields (extra, cause, a request's config)
    // are censored once it has been turned into a plain object.
    serializers: { err: (e: Error) => redactSensitive({ ...pino.stdSerializers.err(e) }) },
    base: { service: 'borderd' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const pretty = usePretty(opts.pretty, process.stdout.isTTY === true, prettyInstalled);
  if (opts.destination) return pino(base, opts.destination as pino.DestinationStream);
  if (pretty) {
    // One line per record on a terminal: a request's fields laid out over several lines would push the banner off the screen.
    return pino({ ...base, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', singleLine: true } } });
  }
  // Synchronous writes to stdout. pino's default asynchronous destination flushes what is pending
  // with a synchronous loop when the process exits, and that loop retries a broken pipe (EPIPE)
  // forever: a daemon whose log reader has gone away would hang on SIGTERM. Written synchronously,
  // a line either goes out or meets the broken pipe at once, and pino then drops the lines after
  // it. Each line costs one write call on the main thread, which only the info level makes per
  // request.
  return pino(base, pino.destination({ dest: 1, sync: true }));
}

/**
 * pino-pretty is a development dependency: an installation without it (the Docker image,
 * npm install --omit=dev) writes JSON lines on a terminal under `auto` instead of failing to start;
 * under `always` it is a configuration error said in one line, not pino's stack trace.
 */
export function usePretty(mode: LogOptions['pretty'], isTTY: boolean, installed: () => boolean): boolean {
  if (mode === 'always') {
    if (!installed())
      throw new ConfigError(
        'invalid config: log.pretty: always needs pino-pretty, a development dependency this installation lacks; use auto or never',
      );
    return true;
  }
  return mode === 'auto' && isTTY && installed();
}

/** Whether the daemon's log on stdout is readable lines for a person, rather than JSON lines for a pipeline. */
export function stdoutLogIsPretty(mode: LogOptions['pretty']): boolean {
  return usePretty(mode, process.stdout.isTTY === true, prettyInstalled);
}

function prettyInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

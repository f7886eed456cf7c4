import { createRequire } from 'node:module';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Identity data fields that are personal (the same fields the API masks for redacted tokens). */
const IDENTITY_PII_FIELDS = ['firstName', 'lastName', 'middleName', 'secondLastName', 'nameInLocalScript', 'taxId', 'dateOfBirth', 'email', 'phone'];
/** Nested inside an identity's data: address lines and postal code, document numbers. */
const IDENTITY_NESTED_PII_FIELDS = ['street1', 'street2', 'postalCode', 'idNumber'];

/**
 * Every nesting level from the top down to `depth` wildcards: `f`, `*.f`, `*.*.f`, … pino's redact
 * wildcard matches one level (an object key or an array index), so each depth is its own path.
 */
const atAnyDepth = (fields: string[], depth: number): string[] => fields.flatMap((f) => Array.from({ length: depth + 1 }, (_, d) => '*.'.repeat(d) + f));

/**
 * Paths pino removes before a line is written. Secrets and personal data never reach a log line;
 * a new field that carries either is added here, the one list.
 *
 * Identity PII is covered where an identity can sit in a log object, up to four levels down: top
 * level (`firstName`), a record (`record.firstName`), an identity's data (`identity.data.firstName`),
 * a request body or a list (`req.body.data.firstName`, `identities.0.data.firstName`), a logged page
 * (`page.data.0.data.firstName`); address lines and document numbers sit one level deeper
 * (`page.data.0.data.address.street1`), so they go to five, and document numbers to six
 * (`page.data.0.data.documents.0.idNumber`). Deeper than that is not covered: log ids.
 * Each path costs time on every line (pino walks each wildcard), so the depth is kept to this.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-admin-token"]',
  'headers.authorization',
  '*.clientSecret',
  '*.apiSecret',
  '*.apiKey',
  '*.accessToken',
  '*.privateKey',
  '*.masterKey',
  '*.password',
  '*.secret',
  'clientSecret',
  'apiSecret',
  'apiKey',
  'accessToken',
  'privateKey',
  'secret',
  '*.credentials',
  'credentials',
  '*.companyId',
  ...atAnyDepth(IDENTITY_PII_FIELDS, 4),
  ...atAnyDepth(IDENTITY_NESTED_PII_FIELDS, 5),
  // A document number inside a logged page: page.data.0.data.documents.0.idNumber.
  '*.*.*.*.*.*.idNumber',
];

export interface LogOptions {
  level: string;
  pretty: 'auto' | 'always' | 'never';
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: LogOptions): Logger {
  const base: LoggerOptions = {
    level: opts.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'borderd' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const pretty = usePretty(opts.pretty, process.stdout.isTTY === true, prettyInstalled);
  if (opts.destination) return pino(base, opts.destination as pino.DestinationStream);
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino(base);
}

/**
 * pino-pretty is a development dependency: an installation without it (the Docker image,
 * npm install --omit=dev) writes JSON lines on a terminal under `auto` instead of failing to start.
 */
export function usePretty(mode: LogOptions['pretty'], isTTY: boolean, installed: () => boolean): boolean {
  if (mode === 'always') return true;
  return mode === 'auto' && isTTY && installed();
}

function prettyInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

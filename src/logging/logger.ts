import { createRequire } from 'node:module';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths pino removes before a line is written. Secrets and personal data never reach a log line;
 * a new field that carries either is added here, the one list.
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
  '*.taxId',
  '*.dateOfBirth',
  '*.email',
  '*.phone',
  '*.idNumber',
  '*.firstName',
  '*.lastName',
  '*.credentials',
  'credentials',
  '*.companyId',
  '*.street1',
  '*.street2',
  '*.postalCode',
  '*.nameInLocalScript',
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

/**
 * The shapes the console reads, as /openapi.json describes them.
 *
 * @module console/types
 */

export interface Period {
  attempts: number;
  succeeded: number;
  successRate: number | null;
  meanLatencyMs: number | null;
}

export interface Health {
  webhookId: string;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  lastSuccessAt: string | null;
  failuresInARow: number;
  pending: number;
  nextAttemptAt: string | null;
  lastHour: Period;
  lastDay: Period;
  slow: boolean;
  hourly: (Period & { hour: string })[];
}

export interface Webhook {
  id: string;
  url: string;
  enabled: boolean;
  eventTypes: string[];
  ordering: 'none' | 'resource' | 'webhook';
  createdAt: string;
  updatedAt: string;
}

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  webhookId: string;
  state: string;
  attempts: number;
  inFlight: boolean;
  waitingBehind: string | null;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

export interface Attempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  requestHeaders: Record<string, string>;
  /** sent: exactly as they went out; rebuilt: an attempt recorded before they were kept. */
  requestHeadersSource: 'sent' | 'rebuilt';
}

export interface EventRow {
  id: string;
  type: string;
  createdAt: string;
  deliveries: { id: string; webhookId: string; state: string; attempts: number; lastStatus: number | null }[];
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export const EVENT_TYPES = [
  'Transaction_Created',
  'Transaction_Updated',
  'VirtualAccount_Created',
  'VirtualAccount_CreationFailed',
  'IdentityComplianceCheck_Updated',
  'IdentityComplianceCheck_Completed',
] as const;

export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'skipped', 'cancelled'] as const;

/** A resource of an ordered webhook waiting behind a head that has failed. */
export interface BlockedLine {
  resource: string | null;
  headId: string;
  eventId: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string;
  waiting: number;
}

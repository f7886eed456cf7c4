/**
 * Time enters borderd through a Clock so that 30/90-day rules and retry schedules can be tested
 * by moving time instead of sleeping.
 *
 * @module domain/clock
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and simulations. */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.parse('2026-01-01T00:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  set(ms: number | string): void {
    this.ms = typeof ms === 'string' ? Date.parse(ms) : ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** ISO 8601 UTC with milliseconds, the one wire format for instants. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

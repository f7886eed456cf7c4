/** The daemon settings of the outbox benchmarks: a short poll, so a released backlog starts at once. */
export const OUTBOX_ENV = { BORDERD_DELIVERY_POLL_INTERVAL_MS: '100' };

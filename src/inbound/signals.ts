/**
 * In-process wake-ups on ctx.signals. INBOUND_SIGNAL is emitted after a commit that queued
 * notifications for decryption; INBOUND_PASS_SIGNAL after each worker pass, with its counts, so
 * tests and tools can await the worker instead of sleeping.
 */
export const INBOUND_SIGNAL = 'inbound';
export const INBOUND_PASS_SIGNAL = 'inbound:pass';

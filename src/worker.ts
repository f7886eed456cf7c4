/**
 * Background work that lives as long as `borderd serve` (the delivery dispatcher, inbound
 * decryption, scheduled jobs). The daemon starts its workers in order and stops them in reverse;
 * stop() finishes or hands back in-flight work (releases leases) before it resolves, so SIGTERM
 * loses nothing.
 *
 * @module worker
 */
export interface Worker {
  name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

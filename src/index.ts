/**
 * Embedding borderd in another Node program: load a config, open a context, start the daemon.
 * Integrators who only receive webhooks want `borderd/verify` instead.
 *
 * @module index
 */
export { loadConfig, ConfigError } from './config/load.js';
export type { Config } from './config/schema.js';
export type { AppContext } from './context.js';
export { createContext } from './create-context.js';
export { startDaemon, type Daemon } from './daemon.js';
export type { AnyWebhookEvent, EventType, WebhookEvent } from './verify/events.js';

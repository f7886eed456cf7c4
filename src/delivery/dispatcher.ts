import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { request, type Agent } from 'undici';
import type { AppContext } from '../context.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { nextAttempt, parseRetryAfter, type RetryPolicy } from '../domain/retry-schedule.js';
import {
  cacheSignature,
  claimDelivery,
  findDue,
  finishAttempt,
  getCachedSignature,
  insertAttempt,
  releaseLeases,
  setPendingState,
  type DueDelivery,
} from '../store/deliveries.js';
import { getWebhookById, updateWebhook } from '../store/webhooks.js';
import { VERSION } from '../version.js';
import type { Worker } from '../workers.js';
import { createDeliveryAgent, literalAddressRefused } from './connector.js';
import { OUTBOX_SIGNAL } from './enqueue.js';
import { Signer } from './signing-keys.js';

const RESPONSE_BODY_BYTES = 1024;
/** Past this many bytes the rest of a response is dropped (the connection is then not reused). */
const RESPONSE_READ_LIMIT = 64 * 1024;

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  retryAfter: string | undefined;
  durationMs: number;
}

export interface DispatcherOptions {
  /** [0, 1) source for retry jitter; tests pass a constant. */
  random?: () => number;
  /** Lease owner id; defaults to host:pid:random. */
  owner?: string;
}

/**
 * Sends due deliveries. Each pass finds due rows (at most perEndpointConcurrency per webhook,
 * oldest first), takes a lease on each, sends with the org's current key's signature, records the
 * attempt and schedules the next one, all under the lease. A crash leaves leased rows that become
 * claimable when the lease ends; a clean stop waits for in-flight sends and releases what is left.
 */
export class Dispatcher implements Worker {
  readonly name = 'dispatcher';
  readonly owner: string;
  readonly #ctx: AppContext;
  readonly #signer: Signer;
  readonly #agent: Agent;
  readonly #policy: RetryPolicy;
  readonly #random: () => number;
  readonly #inflight = new Set<Promise<void>>();
  readonly #perWebhook = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #passRunning = false;
  #passAgain = false;
  #stopped = false;
  /** Only a started worker looks for more work on its own; runOnce() callers drive it themselves. */
  #started = false;
  readonly #wake = () => this.#kick();

  constructor(ctx: AppContext, opts: DispatcherOptions = {}) {
    this.#ctx = ctx;
    this.#signer = new Signer(ctx);
    const d = ctx.config.delivery;
    this.#agent = createDeliveryAgent({ allowPrivateNetworks: ctx.config.webhooks.allowPrivateNetworks, timeoutMs: d.timeoutMs, connections: d.perEndpointConcurrency });
    this.#policy = { scheduleSeconds: d.retryScheduleSeconds, jitter: d.jitter };
    this.#random = opts.random ?? Math.random;
    this.owner = opts.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  }

  start(): void {
    this.#started = true;
    this.#ctx.signals.on(OUTBOX_SIGNAL, this.#wake);
    this.#timer = setInterval(this.#wake, this.#ctx.config.delivery.pollIntervalMs);
    this.#timer.unref();
    this.#kick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#ctx.signals.off(OUTBOX_SIGNAL, this.#wake);
    if (this.#timer) clearInterval(this.#timer);
    await this.drain();
    releaseLeases(this.#ctx.db, this.owner);
    await this.#agent.close();
  }

  /** Waits for every send in flight. */
  async drain(): Promise<void> {
    while (this.#inflight.size) await Promise.allSettled([...this.#inflight]);
  }

  /** One pass for tests and tools: claims what is due now, sends it, and waits for those sends. Returns how many were sent. */
  async runOnce(): Promise<number> {
    const started = this.#claimAndSend();
    await Promise.allSettled(started);
    return started.length;
  }

  #kick(): void {
    if (this.#stopped) return;
    if (this.#passRunning) {
      this.#passAgain = true;
      return;
    }
    this.#passRunning = true;
    try {
      do {
        this.#passAgain = false;
        this.#claimAndSend();
      } while (this.#passAgain && !this.#stopped);
    } catch (err) {
      this.#ctx.log.error({ err }, 'dispatcher pass failed');
    } finally {
      this.#passRunning = false;
    }
  }

  #claimAndSend(): Promise<void>[] {
    const { concurrency, perEndpointConcurrency, timeoutMs } = this.#ctx.config.delivery;
    // A lease shorter than a send could let another process send the same attempt: never allow it.
    const leaseMs = Math.max(this.#ctx.config.delivery.leaseMs, timeoutMs + 5_000);
    const free = concurrency - this.#inflight.size;
    if (free <= 0) return [];
    const now = this.#ctx.clock.now();
    const started: Promise<void>[] = [];
    // Webhooks with every slot taken are left out of the query; partly busy ones may return rows we skip, hence the wider limit.
    const full = [...this.#perWebhook].filter(([, n]) => n >= perEndpointConcurrency).map(([id]) => id);
    for (const due of findDue(this.#ctx.db, now, perEndpointConcurrency, free * 2 + perEndpointConcurrency * this.#perWebhook.size, full)) {
      if (started.length >= free) break;
      const busy = this.#perWebhook.get(due.webhookId) ?? 0;
      if (busy >= perEndpointConcurrency) continue;
      if (!claimDelivery(this.#ctx.db, due.id, this.owner, now, now + leaseMs)) continue;
      this.#perWebhook.set(due.webhookId, busy + 1);
      const p: Promise<void> = this.#deliver(due)
        .catch((err: unknown) => this.#ctx.log.error({ err, deliveryId: due.id }, 'delivery bookkeeping failed'))
        .finally(() => {
          this.#inflight.delete(p);
          const n = (this.#perWebhook.get(due.webhookId) ?? 1) - 1;
          if (n <= 0) this.#perWebhook.delete(due.webhookId);
          else this.#perWebhook.set(due.webhookId, n);
          // A slot is free: look for more work now rather than at the next poll.
          if (this.#started && !this.#stopped) setImmediate(this.#wake);
        });
      this.#inflight.add(p);
      started.push(p);
    }
    return started;
  }

  /** The signature for the org's current key, made once per (event, key) and reused. */
  #signature(due: DueDelivery): { signature: string; keyId: string } {
    const keyId = this.#signer.currentKeyId(due.orgId);
    const cached = keyId && getCachedSignature(this.#ctx.db, due.eventId, keyId);
    if (keyId && cached) return { signature: cached, keyId };
    const made = this.#signer.sign(due.orgId, due.body);
    cacheSignature(this.#ctx.db, due.eventId, made.keyId, made.signature);
    return made;
  }

  async #send(due: DueDelivery, headers: Record<string, string>): Promise<SendResult> {
    const t0 = performance.now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - t0) });
    const url = new URL(due.url);
    if (literalAddressRefused(url, { allowPrivateNetworks: this.#ctx.config.webhooks.allowPrivateNetworks })) {
      return done({ statusCode: null, error: 'address refused: private, loopback or link-local target', responseBody: null, retryAfter: undefined });
    }
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: this.#agent,
        headers,
        body: due.body,
        signal: AbortSignal.timeout(this.#ctx.config.delivery.timeoutMs),
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      let read = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (kept < RESPONSE_BODY_BYTES) {
          const part = chunk.subarray(0, RESPONSE_BODY_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
        read += chunk.length;
        if (read > RESPONSE_READ_LIMIT) break;
      }
      const retryAfter = res.headers['retry-after'];
      return done({
        statusCode: res.statusCode,
        error: null,
        responseBody: Buffer.concat(chunks).toString('utf8'),
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      });
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      const code = e.code ?? e.cause?.code ?? e.name;
      return done({ statusCode: null, error: `${code}: ${e.cause?.message ?? e.message}`.slice(0, 500), responseBody: null, retryAfter: undefined });
    }
  }

  async #deliver(due: DueDelivery): Promise<void> {
    const ctx = this.#ctx;
    const attempt = due.attempts + 1;
    const { signature, keyId } = this.#signature(due);
    const startedMs = ctx.clock.now();
    const result = await this.#send(due, {
      'content-type': 'application/json',
      'user-agent': `borderd/${VERSION}`,
      'x-signature': signature,
      'x-signature-key-id': keyId,
      'x-event-id': due.eventId,
      'x-event-type': due.eventType,
      'x-delivery-attempt': String(attempt),
    });
    const now = ctx.clock.now();
    const at = isoAt(now);
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const gone = result.statusCode === 410;
    const retryAfterMs =
      result.statusCode === 429 || result.statusCode === 503 ? parseRetryAfter(result.retryAfter, now) : undefined;
    const decision = ok || gone ? undefined : nextAttempt(this.#policy, due.step + 1, this.#random(), retryAfterMs);
    const disable = gone || decision?.kind === 'exhausted';

    let outcome: 'delivered' | 'retry' | 'failed' = ok ? 'delivered' : disable ? 'failed' : 'retry';
    ctx.db
      .transaction(() => {
        insertAttempt(ctx.db, {
          id: newId('att', now),
          deliveryId: due.id,
          attempt,
          startedAt: isoAt(startedMs),
          durationMs: result.durationMs,
          statusCode: result.statusCode,
          error: result.error,
          responseBody: result.responseBody,
          keyId,
        });
        const kept = finishAttempt(ctx.db, due.id, this.owner, {
          state: ok ? 'delivered' : disable ? 'failed' : 'pending',
          attempts: attempt,
          step: due.step + 1,
          nextAttemptAt: decision?.kind === 'retry' ? now + decision.delayMs : now,
          lastStatus: result.statusCode,
          lastError: result.error,
          deliveredAt: ok ? at : null,
          at,
        });
        if (!kept) {
          outcome = 'retry';
          return; // the lease expired and another dispatcher owns the row now; the attempt stays recorded
        }
        if (disable) {
          const webhook = getWebhookById(ctx.db, due.webhookId);
          if (webhook?.enabled) {
            const reason = gone ? 'endpoint answered 410 Gone' : `all ${this.#policy.scheduleSeconds.length} attempts failed`;
            updateWebhook(ctx.db, webhook.id, webhook.url, false, reason, at);
          }
          setPendingState(ctx.db, due.webhookId, 'skipped', at);
        }
      })
      .immediate();

    const line = {
      deliveryId: due.id,
      eventId: due.eventId,
      eventType: due.eventType,
      webhookId: due.webhookId,
      orgId: due.orgId,
      attempt,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      outcome,
    };
    if (outcome === 'delivered') ctx.log.info(line, 'delivery attempt');
    else ctx.log.warn(line, disable ? 'delivery failed for good; webhook disabled' : 'delivery attempt failed');
  }
}

/** The worker factory for src/workers.ts. */
export const dispatcherWorker = (ctx: AppContext): Worker => new Dispatcher(ctx);

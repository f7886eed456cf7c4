import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Pool } from 'undici';
import type { AppContext } from '../context.js';
import { bookkeeping, inSavepoint, tryWriteNow, writeTransaction } from '../db/open.js';
import { remember } from '../domain/bounded-map.js';
import { isoAt } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { cycleExhausted, nextAttempt, parseRetryAfter, type RetryPolicy } from '../domain/retry-schedule.js';
import { post, type PostExchange } from '../http/post.js';
import {
  claimDue,
  dueWebhooks,
  finishAttempt,
  lastRetryGotNoAnswer,
  leaseOf,
  releaseLease,
  releaseLeases,
  renewLeases,
  sendTarget,
  type DeliveryState,
  type DueWebhook,
} from '../store/deliveries.js';
import { eventBodies } from '../store/events.js';
import { storeSignature } from '../store/event-signatures.js';
import { insertAttempt, trailingAttemptsFailedWith } from '../store/delivery-attempts.js';
import { VERSION } from '../version.js';
import type { Worker } from '../worker.js';
import { createWebhookPool, literalAddressRefused } from './connector.js';
import { disableWebhook } from './webhook-state.js';
import { EventSignatures } from './event-signatures.js';
import type { SigningKey } from './signing-keys.js';

const RESPONSE_BODY_BYTES = 1024;
/** Past this many bytes the rest of a response is dropped (the connection is then not reused). */
const RESPONSE_READ_LIMIT = 64 * 1024;
/** Event bodies kept in memory: a fan-out claims the same event for every webhook within a few passes. */
const BODY_CACHE = 2_000;
/** Results are recorded together: at most this many per transaction, at most this long after the first of them. */
const FLUSH_BATCH = 64;
const FLUSH_DELAY_MS = 4;
/** How soon results that found the write lock held (another process) are tried again. */
const BUSY_RETRY_MS = 20;
/** A send's deadline timer that fires this much late gives a held-up answer this long more to be read. */
const LATE_TIMER_MS = 100;
/** A webhook's connection pool with nothing in flight for this long is closed (a deleted or quiet webhook keeps no sockets). */
const POOL_IDLE_MS = 30_000;
/** Webhook urls kept parsed: every send to a url parsed it again, a cost the delivery profile showed. */
const TARGET_CACHE = 1_000;
/** How an attempt that could not be signed starts its error: borderd's fault, not the endpoint's. */
const SIGNING_FAILED = 'signing failed: ';

/** A webhook url as a send needs it, parsed once. */
interface Target {
  origin: string;
  path: string;
  /** A literal address the configuration does not allow (private, loopback, link-local). */
  refused: boolean;
}

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  retryAfter: string | undefined;
  durationMs: number;
  /** Nothing was sent because of a fault on borderd's side (signing): never counted against the endpoint. */
  ours?: boolean;
}

export interface DispatcherOptions {
  /** [0, 1) source for retry jitter; tests pass a constant. */
  random?: () => number;
  /** Lease owner id; defaults to host:pid:random. */
  owner?: string;
  /** Event bodies kept in memory between passes (2,000); tests make it small. */
  bodyCacheSize?: number;
  /** The process's event signatures, shared with its event streams; a dispatcher without one has its own. */
  signatures?: EventSignatures;
}

interface EventBody {
  type: string;
  body: string;
}

/** Counters of one dispatcher, for tests and tools. */
export interface DispatcherStats {
  claimed: number;
  /** Signatures this dispatcher had made (node:crypto sign calls), across every organization and key. */
  signatures: number;
}

/** One claimed delivery on its way: what the send needs, and its result once it has one. */
/** What a recorded result logs, once its transaction committed. */
interface RecordedLine {
  line: Record<string, unknown>;
  msg: string;
  level: 'info' | 'warn';
}

interface Job {
  /** Resolves once the result is recorded (or the job is dropped at shutdown). */
  done: Promise<void>;
  resolve: () => void;
  id: string;
  eventId: string;
  webhook: DueWebhook;
  attempts: number;
  step: number;
  /** The row's due time when it was claimed, or when a replay reset it while it waited: which cycle this attempt belongs to. */
  nextAttemptAt: number;
  eventType: string;
  body: string;
  keyId: string | null;
  signature: Promise<string>;
}

interface Finished {
  job: Job;
  startedMs: number;
  result: SendResult;
  done: () => void;
  /** This result disables the webhook once recorded (410, or the last attempt of its cycle failed). */
  endsWebhook: boolean;
}

interface WebhookPool {
  origin: string;
  pool: Pool;
  inflight: number;
  idleSince: number;
}

/**
 * Rounds of send slots a webhook (and the process) may hold in claimed rows. A pass runs when a
 * webhook is down to its last round, so it claims CLAIM_ROUNDS - 1 rounds at once; a pass costs a
 * write transaction, the due query and the body, key and signature reads whatever it claims, so
 * deeper claims spread that over more deliveries. Measured with one busy webhook
 * (perEndpointConcurrency 4): the daemon's main thread spent about 0.5 ms per delivery at 2 rounds,
 * 0.41 at 4, 0.35 at 8. The lease must cover the wait of the last round (#leaseMs), so 4 keeps the
 * default lease at 60 s for the default 10 s timeout.
 */
export const CLAIM_ROUNDS = 4;

/**
 * Splits the process's claims (`budget`) between organizations, max-min fair, and claims through
 * `claim(orgId, room)`, which returns how many more rows it took (at most `room`; a `room` of 0 or
 * less takes nothing). Every organization that holds claims or has a due webhook gets an equal part
 * of what the ones before it left, taken in order of what they hold already, fewest first. What is
 * left after that round goes to those that used all of their room, in further rounds, so a part one
 * organization does not need goes to the others. An organization alone gets the whole budget less
 * what it holds, as before shares existed. One holding more than its part (it claimed while it was
 * alone) claims nothing more, and the others still get theirs: the process may then hold more than
 * `budget` for a while, never more than twice it.
 */
export function shareClaims(
  dueOrgs: ReadonlySet<string>,
  heldByOrg: ReadonlyMap<string, number>,
  budget: number,
  claim: (orgId: string, room: number) => number,
): void {
  const held = (orgId: string) => heldByOrg.get(orgId) ?? 0;
  // An organization holding claims takes part even with nothing due now: what it holds is its part.
  const orgs = [...new Set([...dueOrgs, ...heldByOrg.keys()])].sort((a, b) => held(a) - held(b));
  let left = budget;
  // Never more than twice the budget in all, however many organizations came after one that holds too much.
  let cap = 2 * budget - orgs.reduce((sum, orgId) => sum + held(orgId), 0);
  let waiting = orgs.length;
  let hungry: string[] = [];
  const give = (orgId: string, room: number): number => {
    const took = claim(orgId, Math.min(room, cap));
    cap -= took;
    return took;
  };
  for (const orgId of orgs) {
    const room = Math.ceil(left / waiting) - held(orgId);
    const took = dueOrgs.has(orgId) ? give(orgId, room) : 0;
    if (room > 0 && took === room) hungry.push(orgId);
    left -= held(orgId) + took;
    waiting--;
  }
  while (left > 0 && cap > 0 && hungry.length) {
    const next: string[] = [];
    let n = hungry.length;
    for (const orgId of hungry) {
      const room = Math.ceil(left / n--);
      const took = give(orgId, room);
      if (took === room) next.push(orgId);
      left -= took;
    }
    hungry = next;
  }
}

/**
 * Sends due deliveries. A pass costs what it claims, not the backlog: it lists the enabled webhooks
 * that have a due row (one index probe each), leases up to each webhook's free claim capacity in ONE
 * write transaction (a conditional UPDATE per webhook, on the (webhook_id, state, next_attempt_at)
 * index), reads the bodies of the claimed events once, and signs each (event, key) once (through the
 * process's EventSignatures, shared with the event stream: kept in memory and in event_signatures,
 * made on libuv's thread pool). A webhook holds up to CLAIM_ROUNDS x perEndpointConcurrency claimed
 * rows but sends at most perEndpointConcurrency at once (and the process at most `concurrency`): the
 * waiting ones are signed meanwhile and go out as soon as a slot frees. Results are recorded in
 * batches: every send that finished in the same turn of the event loop goes into one transaction,
 * under its lease. Passes are coalesced: a commit signal,
 * the poll timer and recorded results only request one, and at most one runs per turn of the loop.
 *
 * A crash leaves leased rows that become claimable when the lease ends; a clean stop waits for
 * in-flight sends and releases what is left.
 */
export class Dispatcher implements Worker {
  readonly name = 'dispatcher';
  readonly owner: string;
  readonly #ctx: AppContext;
  readonly #signatures: EventSignatures;
  /** Signatures made for this dispatcher's sends (its stats). */
  #signed = 0;
  readonly #policy: RetryPolicy;
  readonly #random: () => number;
  /** Claimed jobs whose result is not recorded yet (queued or sending). */
  readonly #inflight = new Set<Promise<void>>();
  /**
   * Jobs claimed and not yet sent (queued or sending), per webhook and in all: what the claim caps
   * count. A job whose send is over no longer counts while its result waits to be written.
   */
  readonly #claimedBy = new Map<string, number>();
  /** The same count per organization: what the claim shares are computed from. */
  readonly #claimedByOrg = new Map<string, number>();
  /** Delivery ids claimed and not yet recorded, per webhook: a pass never claims them again. */
  readonly #heldBy = new Map<string, Set<string>>();
  #active = 0;
  readonly #sendingBy = new Map<string, number>();
  /**
   * Webhooks whose last send got no answer at all (a timeout, a refused or reset connection): they
   * send one at a time until an answer comes back, so an endpoint that has stopped answering holds
   * one of the process's slots for each timeout instead of perEndpointConcurrency of them.
   */
  readonly #unanswered = new Set<string>();
  /**
   * Webhooks this process has looked at: on first sight, #unanswered is set from the database. Both
   * forget a webhook with nothing in hand once its pool is closed as idle (#closeIdlePools), so they
   * hold the webhooks of the last POOL_IDLE_MS, not every webhook since start; the next sight reads
   * the database again, which says the same.
   */
  readonly #seen = new Set<string>();
  /** Sends in flight per organization: what the share of send slots is computed from. */
  readonly #sendingByOrg = new Map<string, number>();
  #sending = 0;
  /** Claimed jobs waiting for a send slot, per webhook (their signatures are being made meanwhile). */
  readonly #queues = new Map<string, Job[]>();
  readonly #pools = new Map<string, WebhookPool>();
  readonly #targets = new Map<string, Target>();
  readonly #bodies = new Map<string, EventBody>();
  readonly #bodyCacheSize: number;
  #finished: Finished[] = [];
  /**
   * Webhooks a send result just disabled, until that result is recorded (a few ms later, with its
   * batch): their queued rows must not go out meanwhile, though the database still says enabled.
   */
  readonly #endingBy = new Map<string, number>();
  #flushTimer: NodeJS.Timeout | undefined;
  #passScheduled = false;
  /** The last pass ran out of process-wide claims with due webhooks left: a finished send asks for a pass sooner. */
  #starved = false;
  #timer: NodeJS.Timeout | undefined;
  /** Renews held leases every third of a lease, whatever delivery.pollIntervalMs is. */
  #renewTimer: NodeJS.Timeout | undefined;
  /** Aborts the sends still in flight when a stop's grace (server.shutdownGraceMs) is over. */
  readonly #shutdown = new AbortController();
  readonly #exchanges = new Set<PostExchange>();
  #stopped = false;
  /** Only a started worker looks for more work on its own; runOnce() callers drive it themselves. */
  #started = false;
  #cursor = 0;
  #claimed = 0;
  readonly #wake = () => this.#schedulePass();
  #unlisten: (() => void) | undefined;
  /** When this process last extended the leases of the rows it holds (clock ms). */
  #leasesRenewedAt = 0;
  readonly #tick = () => {
    this.#closeIdlePools();
    this.#renewLeases();
    this.#schedulePass();
  };

  constructor(ctx: AppContext, opts: DispatcherOptions = {}) {
    this.#ctx = ctx;
    this.#signatures = opts.signatures ?? new EventSignatures(ctx);
    const d = ctx.config.delivery;
    this.#policy = { scheduleSeconds: d.retryScheduleSeconds, jitter: d.jitter };
    this.#random = opts.random ?? Math.random;
    this.owner = opts.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.#bodyCacheSize = opts.bodyCacheSize ?? BODY_CACHE;
  }

  start(): void {
    this.#started = true;
    this.#unlisten = this.#ctx.signals.outbox.listen(this.#wake);
    this.#timer = setInterval(this.#tick, this.#ctx.config.delivery.pollIntervalMs);
    this.#timer.unref();
    this.#renewTimer = setInterval(() => this.#renewLeases(), Math.max(100, Math.floor(this.#leaseMs() / 3)));
    this.#renewTimer.unref();
    this.#schedulePass();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#timer) clearInterval(this.#timer);
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    // Claimed but not sent yet: dropped (not an attempt); releaseLeases below gives them back.
    for (const [webhookId, queue] of this.#queues) {
      for (const job of queue) {
        this.#count(this.#claimedBy, webhookId, -1);
        this.#count(this.#claimedByOrg, job.webhook.orgId, -1);
        this.#active--;
        this.#inflight.delete(job.done);
        job.resolve();
      }
    }
    this.#queues.clear();
    // Sends in flight may finish within the grace; what is still out then is abandoned unrecorded
    // (its outcome is unknown) and its lease given back, so the next process sends it again at once.
    let graceTimer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, this.#ctx.config.server.shutdownGraceMs)));
    await Promise.race([this.drain(), graceOver]);
    clearTimeout(graceTimer);
    if (this.#inflight.size) {
      this.#shutdown.abort();
      for (const x of this.#exchanges) x.abort(new Error('shutting down'));
    }
    await this.drain();
    releaseLeases(this.#ctx.db, this.owner);
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.allSettled(pools.map((p) => p.pool.close()));
  }

  /** Waits for every send in flight and the recording of its result. */
  async drain(): Promise<void> {
    while (this.#inflight.size) await Promise.allSettled([...this.#inflight]);
  }

  stats(): DispatcherStats {
    return { claimed: this.#claimed, signatures: this.#signed };
  }

  #count(map: Map<string, number>, key: string, delta: number): void {
    const n = (map.get(key) ?? 0) + delta;
    if (n <= 0) map.delete(key);
    else map.set(key, n);
  }

  /** One pass for tests and tools: claims what is due now, sends it, and waits for those results. Returns how many were sent. */
  async runOnce(): Promise<number> {
    const started = this.#pass();
    await Promise.allSettled(started);
    return started.length;
  }

  #schedulePass(): void {
    if (this.#stopped || this.#passScheduled) return;
    this.#passScheduled = true;
    setImmediate(() => {
      this.#passScheduled = false;
      if (this.#stopped) return;
      try {
        // Each started row's promise is the recording of its result, which #start already handles.
        void this.#pass();
      } catch (err) {
        this.#ctx.log.error({ err }, 'dispatcher pass failed');
      }
    });
  }

  /**
   * Claims up to the free claim capacity, then starts what the send slots allow. A webhook may hold
   * CLAIM_ROUNDS rounds of its send slots in claimed rows: the ones waiting are signed meanwhile and
   * start the moment a send of theirs finishes, without waiting for the next pass. Synchronous up to the sends;
   * returns one promise per claimed row, resolved when its result is recorded.
   */
  #pass(): Promise<void>[] {
    const { concurrency } = this.#ctx.config.delivery;
    const claimsOf = (webhookId: string) => CLAIM_ROUNDS * this.#slotsOf(webhookId);
    const budget = CLAIM_ROUNDS * concurrency;
    const db = this.#ctx.db;
    const now = this.#ctx.clock.now();
    const leaseUntil = now + this.#leaseMs();
    const due = dueWebhooks(db, now).filter((w) => (this.#firstSight(w.id), (this.#claimedBy.get(w.id) ?? 0) < claimsOf(w.id)));
    if (due.length === 0) return [];
    // Every claim taken by the one organization that has work: no share to give, no transaction to open.
    if (this.#active >= budget && this.#claimedByOrg.size === 1 && due.every((w) => this.#claimedByOrg.has(w.orgId))) return [];
    this.#starved = false;
    // Start where the last pass stopped, so with more due webhooks than free slots each gets its turn.
    const start = this.#cursor++ % due.length;
    const byOrg = new Map<string, DueWebhook[]>();
    for (const w of [...due.slice(start), ...due.slice(0, start)]) {
      const list = byOrg.get(w.orgId);
      if (list) list.push(w);
      else byOrg.set(w.orgId, [w]);
    }
    // Not while another process holds the write lock: the next tick or finished send tries again,
    // and meanwhile the event loop serves requests and sends instead of waiting in SQLite.
    const attempt = bookkeeping(db, () =>
      tryWriteNow(db, () => {
        const out: { webhook: DueWebhook; rows: ReturnType<typeof claimDue> }[] = [];
        const taken = new Map<string, number>();
        // Gave fewer rows than asked: nothing more is due there, not worth another query in a later round.
        const drained = new Set<string>();
        shareClaims(new Set(byOrg.keys()), this.#claimedByOrg, budget, (orgId, room) => {
          let took = 0;
          for (const webhook of byOrg.get(orgId)!) {
            if (took >= room) {
              this.#starved = true;
              break;
            }
            const before = (this.#claimedBy.get(webhook.id) ?? 0) + (taken.get(webhook.id) ?? 0);
            const slots = Math.min(claimsOf(webhook.id) - before, room - took);
            if (slots <= 0 || drained.has(webhook.id)) continue;
            const held = this.#heldBy.get(webhook.id);
            const rows = claimDue(db, webhook.id, this.owner, now, leaseUntil, slots, held ? [...held] : []);
            if (rows.length < slots) drained.add(webhook.id);
            took += rows.length;
            if (rows.length) {
              taken.set(webhook.id, (taken.get(webhook.id) ?? 0) + rows.length);
              out.push({ webhook, rows });
            }
          }
          return took;
        });
        return out;
      }),
    );
    if (!attempt.ok) return [];
    const claimed = attempt.value;
    if (claimed.length === 0) return [];

    // Bodies: once per event, for every webhook it fans out to. This pass's own map, not the cache
    // alone: putting the bodies read now into the bounded cache can push out ones this pass found
    // there, and a row whose body was pushed out would be recorded as a signing failure.
    const bodies = new Map<string, EventBody>();
    const missing: string[] = [];
    for (const id of new Set(claimed.flatMap((c) => c.rows.map((r) => r.eventId)))) {
      const cached = this.#bodies.get(id);
      if (cached) bodies.set(id, cached);
      else missing.push(id);
    }
    for (const e of eventBodies(db, missing)) {
      const event = { type: e.type, body: e.body };
      bodies.set(e.id, event);
      remember(this.#bodies, e.id, event, this.#bodyCacheSize);
    }

    // The current key of each organization involved: one read of its key id per pass, so a rotation
    // made anywhere is seen by the next pass; the private key is unsealed once per key id.
    const keys = new Map<string, SigningKey | Error>();
    for (const { webhook } of claimed) {
      if (keys.has(webhook.orgId)) continue;
      try {
        keys.set(webhook.orgId, this.#signatures.signer.currentKey(webhook.orgId));
      } catch (err) {
        keys.set(webhook.orgId, err instanceof Error ? err : new Error(String(err)));
      }
    }
    // Signatures already made (by this process or another, before a restart) are read in one query per key.
    for (const key of new Set(keys.values())) {
      if (key instanceof Error) continue;
      this.#signatures.preload(
        key.keyId,
        claimed.filter((c) => keys.get(c.webhook.orgId) === key).flatMap((c) => c.rows.map((r) => r.eventId)),
      );
    }

    const started: Promise<void>[] = [];
    for (const { webhook, rows } of claimed) {
      const key = keys.get(webhook.orgId)!;
      let queue = this.#queues.get(webhook.id);
      if (!queue) this.#queues.set(webhook.id, (queue = []));
      let held = this.#heldBy.get(webhook.id);
      if (!held) this.#heldBy.set(webhook.id, (held = new Set()));
      for (const row of rows) {
        const event = bodies.get(row.eventId);
        held.add(row.id);
        let settle!: () => void;
        const done = new Promise<void>((r) => (settle = r));
        // The row may be claimed again the moment its job is over: at once, not a microtask later.
        const resolve = () => {
          this.#release(webhook.id, row.id);
          settle();
        };
        const job: Job = {
          done,
          resolve,
          id: row.id,
          eventId: row.eventId,
          webhook,
          attempts: row.attempts,
          step: row.step,
          nextAttemptAt: row.nextAttemptAt,
          eventType: event?.type ?? '',
          body: event?.body ?? '',
          keyId: key instanceof Error ? null : key.keyId,
          signature:
            key instanceof Error
              ? Promise.reject(key)
              : event
                ? this.#signature(row.eventId, key, event.body)
                : Promise.reject(new Error(`event ${row.eventId} not found`)),
        };
        job.signature.catch(() => undefined); // handled where the job awaits it
        this.#count(this.#claimedBy, webhook.id, 1);
        this.#count(this.#claimedByOrg, webhook.orgId, 1);
        this.#active++;
        this.#inflight.add(done);
        queue.push(job);
        started.push(done);
      }
    }
    this.#claimed += started.length;
    this.#pump();
    return started;
  }

  /** A job is over (recorded, or dropped at a stop): its row may be claimed again. */
  #release(webhookId: string, id: string): void {
    const held = this.#heldBy.get(webhookId);
    if (!held) return;
    held.delete(id);
    if (held.size === 0) this.#heldBy.delete(webhookId);
  }

  /**
   * Every third of a lease, the leases of every row this process still holds (queued, sending, or
   * its result waiting to be written) are extended by a whole lease, in one statement. A row can
   * wait for a send slot longer than any lease sized in advance: behind many webhooks taking the
   * process's slots in turn, or behind another organization's share. Without this its lease could
   * end while it waits, and another process on the same database would send the same attempt at
   * the same time. A process that dies stops renewing, and its rows are taken over as before.
   */
  #renewLeases(): void {
    const now = this.#ctx.clock.now();
    const leaseMs = this.#leaseMs();
    if (this.#heldBy.size === 0 || now - this.#leasesRenewedAt < leaseMs / 3) return;
    const ids = [...this.#heldBy.values()].flatMap((held) => [...held]);
    try {
      const db = this.#ctx.db;
      // Not while another process holds the write lock: tried again at the next tick.
      if (bookkeeping(db, () => tryWriteNow(db, () => renewLeases(db, this.owner, ids, now + leaseMs))).ok) this.#leasesRenewedAt = now;
    } catch (err) {
      // The database was busy: tried again at the next tick. A row whose lease runs short is not sent (sendTarget).
      this.#ctx.log.warn({ err, rows: ids.length }, 'leases not renewed; trying again');
    }
  }

  /**
   * How long a claim is leased: a claimed row waits for a send slot (its webhook's sends ahead of it,
   * the process's slots taken in turn), then makes its own send, then its result is written.
   */
  #leaseMs(): number {
    const { leaseMs, timeoutMs } = this.#ctx.config.delivery;
    // A lease shorter than the wait plus the send could let another process send the same attempt:
    // never allow it. A claimed row waits at most CLAIM_ROUNDS - 1 rounds of sends, then makes its
    // own; one more round and 5 s are the margin. A row that waits longer (many webhooks taking the
    // slots in turn, another organization's share) keeps its lease by #renewLeases.
    return Math.max(leaseMs, (CLAIM_ROUNDS + 1) * timeoutMs + 5_000);
  }

  /**
   * Starts queued jobs while their webhook and the process have free send slots, one job per
   * webhook in turn (a webhook that just started one goes to the back), so a webhook with a deep
   * backlog cannot keep the process's slots from the others' claimed rows.
   */
  #pump(): void {
    const { concurrency } = this.#ctx.config.delivery;
    let progress = true;
    while (progress && this.#sending < concurrency) {
      progress = false;
      const share = this.#sendShare(concurrency);
      for (const [webhookId, queue] of [...this.#queues]) {
        if (this.#sending >= concurrency) break;
        if (queue.length === 0) {
          this.#queues.delete(webhookId);
          continue;
        }
        if ((this.#sendingBy.get(webhookId) ?? 0) >= this.#slotsOf(webhookId)) continue;
        if (share !== undefined && (this.#sendingByOrg.get(queue[0]!.webhook.orgId) ?? 0) >= share) continue;
        this.#start(webhookId, queue.shift()!);
        progress = true;
        this.#queues.delete(webhookId);
        if (queue.length) this.#queues.set(webhookId, queue);
      }
    }
  }

  /**
   * The most send slots one organization may hold while several have a queued row that could start
   * (its webhook below perEndpointConcurrency): an equal part of the process's slots. Undefined, no
   * limit, while only one organization is waiting, so an organization alone uses every slot and the
   * share costs nothing when nobody else needs a slot. An organization above its share keeps the
   * sends it has; the slots they free go to the others first.
   */
  #sendShare(concurrency: number): number | undefined {
    // Queued jobs are claimed ones: with claims of one organization only, there is nobody to share with.
    if (this.#queues.size < 2 || this.#claimedByOrg.size < 2) return undefined;
    const waiting = new Set<string>();
    for (const [webhookId, queue] of this.#queues) {
      if (queue.length && (this.#sendingBy.get(webhookId) ?? 0) < this.#slotsOf(webhookId)) waiting.add(queue[0]!.webhook.orgId);
    }
    return waiting.size > 1 ? Math.ceil(concurrency / waiting.size) : undefined;
  }

  /**
   * An endpoint that had stopped answering before this process started (a restart, another
   * daemon's sends) starts at one send at a time too, not with a burst of perEndpointConcurrency
   * sends into the same timeouts; one answer gives it all of them back. Read once per webhook and
   * process, before its first claim is sized, from its most recently tried pending row (one index
   * seek); after that, this process's own sends say.
   */
  #firstSight(webhookId: string): void {
    if (this.#seen.has(webhookId)) return;
    this.#seen.add(webhookId);
    if (lastRetryGotNoAnswer(this.#ctx.db, webhookId, SIGNING_FAILED)) this.#unanswered.add(webhookId);
  }

  /** Send slots a webhook may use now: one while its endpoint does not answer, else perEndpointConcurrency. */
  #slotsOf(webhookId: string): number {
    return this.#unanswered.has(webhookId) ? 1 : this.#ctx.config.delivery.perEndpointConcurrency;
  }

  /** How many sends of this webhook are in flight now (for tests and tools). */
  sendingTo(webhookId: string): number {
    return this.#sendingBy.get(webhookId) ?? 0;
  }

  #start(webhookId: string, job: Job): void {
    this.#sending++;
    this.#count(this.#sendingBy, webhookId, 1);
    this.#count(this.#sendingByOrg, job.webhook.orgId, 1);
    void this.#deliver(job)
      .catch((err: unknown) => this.#ctx.log.error({ err, deliveryId: job.id }, 'delivery bookkeeping failed'))
      .finally(() => {
        this.#inflight.delete(job.done);
        job.resolve();
      });
  }

  /**
   * A send of this webhook is over (its result is not recorded yet): its slot goes to the next
   * queued job at once. Its claim capacity goes to a pass only once the webhook is down to one
   * round of sends (perEndpointConcurrency claimed), or, when the last pass ran out of the process's
   * claims, once the process is down to one round of its own (concurrency): a pass then refills
   * several rounds at once instead of one row per finished send, which cost a transaction, a due
   * query and the body and signature reads for each row. The queued round keeps the slots busy
   * while the pass runs.
   */
  #sendFinished(webhookId: string, orgId: string): void {
    this.#sending--;
    this.#count(this.#sendingBy, webhookId, -1);
    this.#count(this.#sendingByOrg, orgId, -1);
    this.#count(this.#claimedBy, webhookId, -1);
    this.#count(this.#claimedByOrg, orgId, -1);
    this.#active--;
    if (this.#stopped) return;
    this.#pump();
    const { concurrency } = this.#ctx.config.delivery;
    const low = (this.#claimedBy.get(webhookId) ?? 0) <= this.#slotsOf(webhookId) || (this.#starved && this.#active <= concurrency);
    if (this.#started && low) this.#schedulePass();
  }

  /** The signature of (event, key): made once per process, on the thread pool, and reused by every endpoint, retry and stream. */
  #signature(eventId: string, key: SigningKey, body: string): Promise<string> {
    const { signature, made } = this.#signatures.signatureOf(eventId, key, body);
    if (made) this.#signed++;
    return signature;
  }

  #target(href: string): Target {
    let target = this.#targets.get(href);
    if (!target) {
      const url = new URL(href);
      const refused = literalAddressRefused(url, { allowPrivateNetworks: this.#ctx.config.webhooks.allowPrivateNetworks });
      target = { origin: url.origin, path: url.pathname + url.search, refused };
      remember(this.#targets, href, target, TARGET_CACHE);
    }
    return target;
  }

  #poolFor(webhook: DueWebhook, target: Target): WebhookPool {
    let entry = this.#pools.get(webhook.id);
    if (entry && entry.origin !== target.origin) {
      // The url moved to another origin (PATCH): the old sockets go once their requests are done.
      void entry.pool.close().catch(() => undefined);
      entry = undefined;
    }
    if (!entry) {
      const { timeoutMs, perEndpointConcurrency } = this.#ctx.config.delivery;
      entry = {
        origin: target.origin,
        pool: createWebhookPool(target.origin, {
          allowPrivateNetworks: this.#ctx.config.webhooks.allowPrivateNetworks,
          timeoutMs,
          connections: perEndpointConcurrency,
        }),
        inflight: 0,
        idleSince: performance.now(),
      };
      this.#pools.set(webhook.id, entry);
    }
    return entry;
  }

  #closeIdlePools(): void {
    const now = performance.now();
    for (const [id, entry] of this.#pools) {
      if (entry.inflight === 0 && now - entry.idleSince > POOL_IDLE_MS) {
        this.#pools.delete(id);
        void entry.pool.close().catch(() => undefined);
      }
    }
    // A webhook with no pool (closed above, or never made: a refused target) and nothing in hand.
    for (const id of this.#seen) {
      if (!this.#pools.has(id) && !this.#queues.get(id)?.length && !this.#claimedBy.has(id) && !this.#sendingBy.has(id)) {
        this.#seen.delete(id);
        this.#unanswered.delete(id);
      }
    }
  }

  /** How many webhooks this process keeps state for (for tests and tools). */
  get webhooksTracked(): number {
    return this.#seen.size;
  }

  async #send(job: Job, headers: Record<string, string>): Promise<SendResult> {
    const t0 = performance.now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - t0) });
    const target = this.#target(job.webhook.url);
    if (target.refused) {
      return done({
        statusCode: null,
        error: 'address refused: private, loopback or link-local target',
        responseBody: null,
        retryAfter: undefined,
      });
    }
    // A stop's grace ended while this job waited for its signature: send nothing (stop() gives the lease back).
    if (this.#shutdown.signal.aborted)
      return done({ statusCode: null, error: 'not sent: shutting down', responseBody: null, retryAfter: undefined });
    const entry = this.#poolFor(job.webhook, target);
    entry.inflight++;
    const { timeoutMs } = this.#ctx.config.delivery;
    const exchange = post(entry.pool, {
      path: target.path,
      headers,
      body: job.body,
      keepBytes: RESPONSE_BODY_BYTES,
      readLimit: RESPONSE_READ_LIMIT,
    });
    let timer: NodeJS.Timeout;
    const expire = (late: boolean) => {
      // Fired well past its time: the event loop was held (a long garbage collection, a write that
      // waited for a lock). The answer may have arrived meanwhile, unread; timers run before I/O, so
      // it gets one more short wait to be read rather than being recorded as a timeout.
      if (!late && performance.now() - t0 > timeoutMs + LATE_TIMER_MS) {
        timer = setTimeout(() => expire(true), LATE_TIMER_MS);
        return;
      }
      // Said apart: an endpoint that took no connection in time, and one that did not answer in time.
      const e = new Error(exchange.connected ? `no complete answer within ${timeoutMs} ms` : `no connection within ${timeoutMs} ms`);
      e.name = 'TimeoutError';
      exchange.abort(e);
    };
    // The webhook's own pool has a socket for each of its slots, so the clock starts when the request can go.
    timer = setTimeout(() => expire(false), timeoutMs);
    this.#exchanges.add(exchange);
    try {
      const answer = await exchange.answer;
      return done({ statusCode: answer.statusCode, error: null, responseBody: answer.body, retryAfter: answer.retryAfter });
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      const code = e.code ?? e.cause?.code ?? e.name;
      return done({
        statusCode: null,
        error: `${code}: ${e.cause?.message ?? e.message}`.slice(0, 500),
        responseBody: null,
        retryAfter: undefined,
      });
    } finally {
      clearTimeout(timer);
      this.#exchanges.delete(exchange);
      entry.inflight--;
      if (entry.inflight === 0) entry.idleSince = performance.now();
    }
  }

  /**
   * Read just before a claimed row is sent: it may have waited rounds of sends for its slot, and
   * meanwhile its webhook may have been disabled (an operator, a 410, another row's last failure),
   * deleted, replayed, or moved to another url, or its organization's key rotated. A row that is no
   * longer due under our lease is not sent and its lease is given back (a replay then sends it at
   * once); a moved webhook gets its new url; a row signed with a key retired since is signed again
   * with the current one. The one indexed read costs microseconds next to the send.
   */
  #stillToSend(job: Job): boolean {
    const db = this.#ctx.db;
    let target: ReturnType<typeof sendTarget>;
    // A result of this webhook that disables it is not recorded yet: the database still says enabled.
    const ending = this.#endingBy.has(job.webhook.id);
    // The lease must outlast this send by a margin; #renewLeases keeps it so.
    const now = this.#ctx.clock.now();
    const read = () => sendTarget(db, job.id, this.owner, job.step, job.keyId, now + this.#ctx.config.delivery.timeoutMs + 1_000);
    try {
      target = ending ? undefined : read();
    } catch (err) {
      // The check is a safeguard; a read that fails sends as claimed, as before it existed.
      this.#ctx.log.error({ err, deliveryId: job.id }, 'delivery target check failed');
      return true;
    }
    if (target === undefined && !ending) {
      // Its lease ran short (a jump of the wall clock, or a renewal that failed) but it may still be
      // ours: renewed now if no other process took it, then read again. Never in a busy wait: with the
      // write lock held elsewhere it is not sent, and its lease ends on its own.
      try {
        const renewed = bookkeeping(db, () => tryWriteNow(db, () => renewLeases(db, this.owner, [job.id], now + this.#leaseMs())));
        if (renewed.ok && renewed.value > 0) target = read();
      } catch (err) {
        this.#ctx.log.warn({ err, deliveryId: job.id }, 'lease not renewed before a send; the row is given back');
      }
    }
    if (target === undefined) {
      try {
        // Given back so a replay or the next pass sends it at once; with the write lock held
        // elsewhere (no busy wait here), its lease ends on its own instead.
        bookkeeping(db, () => tryWriteNow(db, () => releaseLease(db, job.id, this.owner)));
      } catch (err) {
        // Not sent either way; the lease then ends on its own. Not an attempt, so not the caller's catch.
        this.#ctx.log.warn({ err, deliveryId: job.id }, 'lease of a row not sent was not given back; it ends on its own');
      }
      this.#ctx.log.info(
        { deliveryId: job.id, eventId: job.eventId, webhookId: job.webhook.id },
        'delivery not sent: its webhook or row changed while it waited',
      );
      return false;
    }
    if (target.url !== job.webhook.url) job.webhook = { ...job.webhook, url: target.url };
    // Replayed while it waited (a new cycle at step 0, a new due time): this send is that cycle's.
    job.nextAttemptAt = target.nextAttemptAt;
    if (target.keyRetired) {
      // Rotated while this row waited: a receiver that fetched the new public key could not check
      // the old signature. A failure here is a signing failure like any other (the caller's catch).
      const key = this.#signatures.signer.currentKey(job.webhook.orgId);
      job.signature = this.#signature(job.eventId, key, job.body);
      job.keyId = key.keyId;
    }
    return true;
  }

  async #deliver(job: Job): Promise<void> {
    const startedMs = this.#ctx.clock.now();
    let result: SendResult;
    let endsWebhook = false;
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      this.#sendFinished(job.webhook.id, job.webhook.orgId);
    };
    try {
      await job.signature;
      // Not sent if the row changed while it waited (not an attempt). A row signed again because its
      // key was retired is checked once more after that signature: another rotation may have come
      // while it was being made.
      for (let checks = 1; ; checks++) {
        const signedWith = job.keyId;
        if (!this.#stillToSend(job)) return;
        await job.signature;
        if (job.keyId === signedWith || checks === 3) break;
      }
      result = await this.#send(job, {
        'content-type': 'application/json',
        'user-agent': `borderd/${VERSION}`,
        'x-signature': await job.signature,
        'x-signature-key-id': job.keyId!,
        'x-event-id': job.eventId,
        'x-event-type': job.eventType,
        'x-delivery-attempt': String(job.attempts + 1),
      });
      // Before the slot frees (the next queued row of this webhook starts at once): a result that will
      // disable the webhook stops its queued rows now, not once the batch is recorded; and an endpoint
      // that gave no answer goes down to one send at a time until one comes back.
      if (result.statusCode === null) this.#unanswered.add(job.webhook.id);
      else this.#unanswered.delete(job.webhook.id);
      endsWebhook = this.#endsWebhook(job, result);
      if (endsWebhook) this.#count(this.#endingBy, job.webhook.id, 1);
    } catch (err) {
      // Nothing was sent (the private key could not be opened, the event is gone): a failed attempt like any other.
      const message = err instanceof Error ? err.message : String(err);
      result = {
        statusCode: null,
        error: `${SIGNING_FAILED}${message}`.slice(0, 500),
        responseBody: null,
        retryAfter: undefined,
        durationMs: 0,
        ours: true,
      };
      job.keyId = null;
    } finally {
      freeSlot();
    }
    // Cut off by the end of a stop's grace: not an attempt (its outcome is unknown); stop() gives the lease back.
    if (this.#shutdown.signal.aborted && result.statusCode === null) {
      if (endsWebhook) this.#count(this.#endingBy, job.webhook.id, -1);
      return;
    }
    await new Promise<void>((done) => {
      this.#finished.push({ job, startedMs, result, done, endsWebhook });
      // Results wait a few milliseconds to share one transaction: each commit writes the touched
      // pages to the WAL, so one per result cost more than the send. The send slot is already free;
      // only the claim waits, and a webhook holds CLAIM_ROUNDS rounds of send slots in claims.
      if (this.#finished.length >= FLUSH_BATCH) {
        clearTimeout(this.#flushTimer);
        this.#flushTimer = undefined;
        setImmediate(() => this.#flush());
      } else if (!this.#flushTimer) {
        this.#flushTimer = setTimeout(() => this.#flush(), FLUSH_DELAY_MS);
      }
    });
  }

  /** Records every result that arrived since the last flush in one transaction, then logs them. */
  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const batch = this.#finished;
    if (batch.length === 0) return;
    // Every signature made and not stored yet (a stream's too) goes into this transaction.
    const signatures = this.#signatures.takeUnstored();
    this.#finished = [];
    const ctx = this.#ctx;
    let lines: RecordedLine[] = [];
    // The whole batch in one transaction first: two statements per result. If any write fails (its
    // row deleted meanwhile), that transaction rolls back and the batch is recorded again with each
    // result in its own savepoint, so the failing one is logged alone and the others are recorded.
    // A row whose result is lost keeps its lease and is sent again when the lease ends (at least once).
    let began = false;
    const writeAll = (): RecordedLine[] => {
      began = true;
      for (const s of signatures) storeSignature(ctx.db, s.eventId, s.keyId, s.signature);
      return batch.map((f) => this.#record(f));
    };
    // While running, a held write lock (another process) is waited for on a timer; at a stop, in
    // SQLite's busy wait as before, since the stop waits for these results anyway.
    const recordAll = (): RecordedLine[] | undefined => {
      if (this.#stopped) return writeTransaction(ctx.db, writeAll);
      const attempt = tryWriteNow(ctx.db, writeAll);
      return attempt.ok ? attempt.value : undefined;
    };
    const recordEach = (): RecordedLine[] =>
      withTransaction(ctx, async (ctx) => {
        for (const s of signatures) {
          const o = inSavepoint(ctx.db, () => storeSignature(ctx.db, s.eventId, s.keyId, s.signature));
          if (!o.ok) ctx.log.warn({ err: o.err, eventId: s.eventId }, 'signature not stored');
        }
        return batch.flatMap((f) => {
          const o = inSavepoint(ctx.db, () => this.#record(f));
          if (o.ok) return [o.value];
          ctx.log.error({ err: o.err, deliveryId: f.job.id }, 'delivery bookkeeping failed');
          return [];
        });
      });
    try {
      const recorded = bookkeeping(ctx.db, () => {
        try {
          return recordAll();
        } catch (err) {
          // Only a write that failed inside is retried alone; a transaction that could not start is reported as it is.
          if (!began) throw err;
          return recordEach();
        }
      });
      if (recorded === undefined) {
        // The write lock is held elsewhere: the results wait in memory (their rows stay leased and
        // renewed) and are written a little later, with whatever finished meanwhile.
        this.#finished = batch.concat(this.#finished);
        this.#signatures.giveBack(signatures);
        clearTimeout(this.#flushTimer);
        this.#flushTimer = setTimeout(() => this.#flush(), BUSY_RETRY_MS);
        return;
      }
      lines = recorded;
    } catch (err) {
      ctx.log.error({ err, deliveryIds: batch.map((f) => f.job.id) }, 'delivery bookkeeping failed');
    }
    for (const { line, msg, level } of lines) ctx.log[level](line, msg);
    // Recorded (or not, then the database decides): the webhook's state is read from the database again.
    for (const f of batch) if (f.endsWebhook) this.#count(this.#endingBy, f.job.webhook.id, -1);
    for (const f of batch) f.done();
  }

  /**
   * Whether a result disables the webhook: a 410, or the failed last attempt of its cycle; never
   * borderd's own fault (a signing failure backs off along the schedule but does not exhaust it).
   * Decided here once: at the send (to stop the webhook's queued rows) and when it is recorded.
   */
  #endsWebhook(job: Job, result: SendResult): boolean {
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    return !ok && !result.ours && (result.statusCode === 410 || cycleExhausted(this.#policy, job.step + 1));
  }

  /** Inside the flush transaction: the attempt row, then the delivery's new state, only under our lease. */
  #record({ job, startedMs, result }: Finished): RecordedLine {
    const ctx = this.#ctx;
    const now = ctx.clock.now();
    const at = isoAt(now);
    const attempt = job.attempts + 1;
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const gone = result.statusCode === 410;
    insertAttempt(ctx.db, {
      id: newId('att', now),
      deliveryId: job.id,
      attempt,
      startedAt: isoAt(startedMs),
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      error: result.error,
      responseBody: result.responseBody,
      keyId: job.keyId,
    });
    const line = {
      deliveryId: job.id,
      eventId: job.eventId,
      eventType: job.eventType,
      webhookId: job.webhook.id,
      orgId: job.webhook.orgId,
      attempt,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
    };
    const retryAfterMs = result.statusCode === 429 || result.statusCode === 503 ? parseRetryAfter(result.retryAfter, now) : undefined;
    // Our own fault (the signing key could not be used) is not the endpoint's: its step stays, so
    // the endpoint keeps every attempt of its schedule for when signing works again. The wait
    // still grows along the schedule, by how many of these came in a row (never past its end).
    const lastStep = this.#policy.scheduleSeconds.length - 1;
    const nextStep = result.ours ? job.step : job.step + 1;
    const waitStep = result.ours ? Math.min(job.step + trailingAttemptsFailedWith(ctx.db, job.id, SIGNING_FAILED), lastStep) : nextStep;
    const disable = this.#endsWebhook(job, result);
    const decision = ok || disable ? undefined : nextAttempt(this.#policy, waitStep, this.#random(), retryAfterMs);
    const common = { attempts: attempt, lastStatus: result.statusCode, lastError: result.error, at };
    // The usual case, in one statement: the row is still ours, pending, at the step that was sent.
    const advanced = finishAttempt(
      ctx.db,
      job.id,
      this.owner,
      {
        ...common,
        state: ok ? 'delivered' : disable ? 'failed' : 'pending',
        step: nextStep,
        nextAttemptAt: decision?.kind === 'retry' ? now + decision.delayMs : now,
        deliveredAt: ok ? at : null,
      },
      { state: 'pending', step: job.step, nextAttemptAt: job.nextAttemptAt },
    );
    if (!advanced) return this.#recordChanged(job, ok, line, common);
    if (disable) {
      const reason = gone ? 'endpoint answered 410 Gone' : `all ${this.#policy.scheduleSeconds.length} attempts failed`;
      disableWebhook(ctx.db, job.webhook.id, reason, at);
    }
    const outcome = ok ? 'delivered' : disable ? 'failed' : 'retry';
    if (ok) return { line: { ...line, outcome }, msg: 'delivery attempt', level: 'info' };
    if (result.ours)
      return { line: { ...line, outcome }, msg: 'delivery not sent: signing failed (the endpoint is not penalized)', level: 'warn' };
    return {
      line: { ...line, outcome },
      msg: disable ? 'delivery failed for good; webhook disabled' : 'delivery attempt failed',
      level: 'warn',
    };
  }

  /** #record when the row changed while the attempt was in flight: its lease ended, or an operator moved it. */
  #recordChanged(
    job: Job,
    ok: boolean,
    line: Record<string, unknown>,
    common: { attempts: number; lastStatus: number | null; lastError: string | null; at: string },
  ): RecordedLine {
    const ctx = this.#ctx;
    const row = leaseOf(ctx.db, job.id);
    if (!row || row.claimedBy !== this.owner) {
      // The lease ended and another dispatcher owns the row now: the attempt stays recorded, the row is theirs.
      return ok
        ? { line: { ...line, outcome: 'delivered', leaseLost: true }, msg: 'delivery attempt', level: 'info' }
        : { line: { ...line, outcome: 'lease_lost' }, msg: 'delivery attempt failed', level: 'warn' };
    }
    // Disabled, deleted or replayed while in flight. A 2xx is what happened: delivered. A failure
    // leaves the row as the operator set it (skipped, cancelled, or a fresh replay cycle).
    const state: DeliveryState = ok ? 'delivered' : row.state;
    finishAttempt(ctx.db, job.id, this.owner, {
      ...common,
      state,
      step: row.step,
      nextAttemptAt: row.nextAttemptAt,
      deliveredAt: ok ? common.at : null,
    });
    return ok
      ? { line: { ...line, outcome: 'delivered' }, msg: 'delivery attempt', level: 'info' }
      : { line: { ...line, outcome: row.state }, msg: 'delivery attempt failed', level: 'warn' };
  }
}

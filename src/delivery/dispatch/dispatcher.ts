/**
 * The delivery worker: starts and stops, runs passes (claim what is due, hand it to the send
 * slots), and takes each claimed job through its stages (signed and checked, sent, recorded). What
 * each stage decides lives in its own part of this folder; this file only orders them.
 *
 * @module delivery/dispatch/dispatcher
 */
import { newNodeId } from '../../cluster/nodes.js';
import type { AppContext } from '../../context.js';
import { deliveryHeaders } from '../../domain/delivery-headers.js';
import { attemptOutcomeLabel, endsWebhook } from '../../domain/delivery-rules.js';
import type { RetryPolicy } from '../../domain/retry-schedule.js';
import { claimDue, dueWebhooks, type ClaimCursor, type DueWebhook } from '../../store/delivery-claims.js';
import { VERSION } from '../../version.js';
import type { Worker } from '../../worker.js';
import { EventSignatures } from '../event-signatures.js';
import { Ed25519Keys } from '../ed25519-keys.js';
import { WebhookSecretKeys } from '../webhook-secrets.js';
import { claimCapacity, ClaimPlanner, webhookClaimCapacity } from './claim-shares.js';
import { EndpointPools } from './endpoint-pools.js';
import { jobOf, signingFailed, type Job, type SendResult } from './job.js';
import { activeTraceparent, contextOf, inSpan, SpanKind, tracingOn, type SpanOptions } from '../../tracing/spans.js';
import { Leases, SignalledChanges } from './leases.js';
import { Recorder } from './record.js';
import { Sender } from './send.js';
import { SendSlots } from './send-slots.js';
import { Signing, standardHeaders } from './signing.js';
import { SlowEndpoints } from './slow-endpoints.js';
import { UnansweredEndpoints } from './unanswered.js';

export interface DispatcherOptions {
  /** [0, 1) source for retry jitter; tests pass a constant. */
  random?: () => number;
  /** Lease owner id; defaults to host:pid:random. */
  owner?: string;
  /** Event bodies kept in memory between passes (2,000); tests make it small. */
  bodyCacheSize?: number;
  /** The process's event signatures, shared with its event streams; a dispatcher without one has its own. */
  signatures?: EventSignatures;
  /**
   * This node's part of `slots` placed by `placeKey` (the node registry's share), when several nodes
   * share the database; without it, all of them. A webhook's slots and its organization's are both
   * placed by the organization id, so the node that holds a part of one holds a part of the other.
   */
  share?: (placeKey: string, slots: number) => number;
}

/** A delivery attempt's span: a client span under the span that wrote its event. */
const deliverySpan = (job: Job): SpanOptions => ({
  kind: SpanKind.CLIENT,
  parent: contextOf({ traceparent: job.traceContext ?? undefined }),
  attributes: {
    'borderd.event_id': job.eventId,
    'borderd.event_type': job.eventType,
    'borderd.delivery_id': job.id,
    'borderd.webhook_id': job.webhook.id,
    'borderd.attempt': job.attempts + 1,
  },
});

/** The user-agent of every send, made once. */
const USER_AGENT = `borderd/${VERSION}`;

/** A send's headers, in one object: borderd's own, then the Standard Webhooks ones when the webhook has them. */
function sendHeaders(job: Job, signature: string, nowMs: number, traceparent?: string): Record<string, string> {
  return deliveryHeaders({
    userAgent: USER_AGENT,
    signature,
    keyId: job.keyId,
    eventId: job.eventId,
    eventType: job.eventType,
    attempt: job.attempts + 1,
    standardWebhooks: standardHeaders(job, nowMs),
    traceparent,
  });
}

/** Counters of one dispatcher, for tests and tools. */
export interface DispatcherStats {
  claimed: number;
  /** Signatures this dispatcher has made (node:crypto sign calls), across every organization and key. */
  signatures: number;
}

/**
 * Sends due deliveries. A pass costs what it claims, not the backlog: it lists the enabled webhooks
 * that have a due row (one index probe each) or, as a refill, takes those it knows due, leases up to
 * each webhook's free claim capacity in ONE write transaction (claim-shares.ts), reads the bodies of
 * the claimed events once and signs each (event, key) once (signing.ts), and queues the jobs for
 * their send slots (send-slots.ts). Passes are coalesced: a commit signal, the poll timer and
 * finished sends only request one, and at most one runs per turn of the loop; the first two ask for
 * a listing, a finished send for a refill (#schedulePass). Results are recorded in batches (record.ts).
 *
 * A crash leaves leased rows, which the node registry (src/cluster/nodes.ts) takes back once it
 * knows the holder dead, or their leases end; a clean stop waits for in-flight sends and releases
 * what is left.
 */
export class Dispatcher implements Worker {
  readonly name = 'dispatcher';
  readonly owner: string;
  readonly #ctx: AppContext;
  readonly #policy: RetryPolicy;
  readonly #planner = new ClaimPlanner();
  readonly #unanswered: UnansweredEndpoints;
  readonly #slow: SlowEndpoints;
  readonly #slots: SendSlots<Job>;
  readonly #leases: Leases;
  /** The process's count of changes signalled, shared by the leases and the signing's kept reads. */
  readonly #changes: SignalledChanges;
  readonly #pools: EndpointPools;
  readonly #sender: Sender;
  readonly #signing: Signing;
  readonly #recorder: Recorder;
  /** Claimed jobs whose result is not recorded yet (queued, sending, or waiting to be written). */
  readonly #inflight = new Set<Promise<void>>();
  #claimed = 0;
  #passScheduled = false;
  /** The next pass lists the due webhooks (a poll tick, a wake-up); a pass that only refills does not. */
  #listNext = false;
  /**
   * Webhooks known to have more due rows than this node holds, by what it read last: listed due by
   * the last listing and not claimed to their end since, or their last claim came back full. A
   * refill claims for these without a listing; the next listing replaces them, but for the unordered
   * ones whose last claim came back full (#candidates). With each, after a full claim, the last row
   * it took: the next claim starts after it (claimDue's cursor).
   */
  readonly #known = new Map<string, { webhook: DueWebhook; after?: ClaimCursor }>();
  /** The pass running now: passes never overlap, so each reads the claim capacity it claims against. */
  #current: Promise<Promise<void>[]> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Only a started worker looks for more work on its own; runOnce() callers drive it themselves. */
  #started = false;
  #unlisten: (() => void) | undefined;
  readonly #wake = () => this.#schedulePass(true);
  readonly #tick = () => {
    this.#pools.closeIdle();
    // A webhook with no pool (closed as idle, or never made: a refused target) and nothing in hand;
    // not during a pass, which may have seen a webhook and not claimed its rows yet.
    if (!this.#current) this.#unanswered.forget(this.#idle);
    this.#slow.forget(this.#idle);
    this.#giveBack(this.#slots.dropQueued((webhookId, orgId) => this.#slotsOf(webhookId, orgId) === 0 || this.#orgSlotsOf(orgId) === 0));
    void this.#leases.renew();
    this.#schedulePass(true);
  };
  readonly #idle = (webhookId: string) => !this.#pools.has(webhookId) && !this.#slots.holds(webhookId);
  readonly #share: (placeKey: string, slots: number) => number;
  /**
   * Send slots a webhook may use on this node now: its endpoint's (unanswered.ts), this node's part
   * of them, placed by its organization like the organization's own slots: a webhook cut to one slot
   * is sent by a node that has a part of its organization's slots too.
   */
  readonly #slotsOf = (webhookId: string, orgId: string) => this.#share(orgId, this.#unanswered.slotsOf(webhookId));
  /** Send slots an organization may use on this node: this node's part of perOrganizationConcurrency. */
  readonly #orgSlotsOf = (orgId: string) => this.#share(orgId, this.#ctx.config.delivery.perOrganizationConcurrency);
  readonly #startJob = (job: Job) => this.#start(job);

  constructor(ctx: AppContext, opts: DispatcherOptions = {}) {
    this.#ctx = ctx;
    const signatures = opts.signatures ?? new EventSignatures(ctx);
    const d = ctx.config.delivery;
    this.#policy = { scheduleSeconds: d.retryScheduleSeconds, jitter: d.jitter };
    this.owner = opts.owner ?? newNodeId();
    this.#share = opts.share ?? ((_placeKey, slots) => slots);
    this.#unanswered = new UnansweredEndpoints(ctx.db, d);
    this.#slow = new SlowEndpoints(d);
    this.#slots = new SendSlots(d, this.#slotsOf, { orgSlotsOf: this.#orgSlotsOf, isSlow: (id) => this.#slow.isSlow(id) });
    const changes = (this.#changes = new SignalledChanges(ctx.signals.webhookChanged));
    this.#leases = new Leases(ctx, this.owner, changes);
    this.#pools = new EndpointPools(ctx.config);
    this.#sender = new Sender(this.#pools, d);
    this.#signing = new Signing(ctx.db, signatures, opts.bodyCacheSize, new WebhookSecretKeys(ctx), new Ed25519Keys(ctx), {
      now: () => ctx.clock.now(),
      changes,
    });
    this.#recorder = new Recorder(ctx, {
      owner: this.owner,
      policy: this.#policy,
      random: opts.random ?? Math.random,
      signatures,
      // The webhook is disabled now: rows claimed before are read again before they go (leases.ts).
      ended: (webhookId) => {
        changes.changed();
        this.#slots.endingOver(webhookId);
      },
    });
  }

  start(): void {
    this.#started = true;
    this.#unlisten = this.#ctx.signals.outbox.listen(this.#wake);
    this.#timer = setInterval(this.#tick, this.#ctx.config.delivery.pollIntervalMs);
    this.#timer.unref();
    this.#leases.startRenewing();
    this.#schedulePass(true);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#recorder.stopping();
    this.#unlisten?.();
    if (this.#timer) clearInterval(this.#timer);
    this.#leases.stopRenewing();
    this.#changes.close();
    // Claimed but not sent yet: dropped (not an attempt); releaseAll below gives them back.
    for (const job of this.#slots.dropQueued()) this.#forgetJob(job);
    // Sends in flight may finish within the grace; what is still out then is abandoned unrecorded
    // (its outcome is unknown) and its lease given back, so the next process sends it again at once.
    let graceTimer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, this.#ctx.config.server.shutdownGraceMs)));
    await Promise.race([this.drain(), graceOver]);
    clearTimeout(graceTimer);
    if (this.#inflight.size) this.#sender.cutOffAll();
    await this.#current?.then(
      () => undefined,
      () => undefined,
    );
    await this.drain();
    await this.#leases.releaseAll();
    await this.#pools.closeAll();
  }

  /** A claimed job leaves unsent, unrecorded: not an attempt. */
  #forgetJob(job: Job): void {
    this.#inflight.delete(job.done);
    job.resolve();
  }

  /**
   * Claimed rows of webhooks (or organizations) this node's part of the send slots no longer covers
   * (another node joined): given back at once so a node with a part sends them, instead of held
   * here unsent.
   */
  #giveBack(jobs: readonly Job[]): void {
    if (jobs.length === 0) return;
    for (const job of jobs) this.#forgetJob(job);
    void this.#leases.giveBack(jobs.map((job) => job.id));
  }

  /** Waits for every send in flight and the recording of its result. */
  async drain(): Promise<void> {
    while (this.#inflight.size) await Promise.allSettled([...this.#inflight]);
  }

  stats(): DispatcherStats {
    return { claimed: this.#claimed, signatures: this.#signing.made };
  }

  /** How many sends of this webhook are in flight now (for tests and tools). */
  sendingTo(webhookId: string): number {
    return this.#slots.sendingTo(webhookId);
  }

  /** Sends in flight and claimed rows waiting for a send slot, per organization holding claims (metrics, tests). */
  byOrg(): Map<string, { sending: number; queued: number }> {
    return this.#slots.byOrg();
  }

  /** Whether this process counts the webhook's endpoint as slow now (slow-endpoints.ts). */
  isSlow(webhookId: string): boolean {
    return this.#slow.isSlow(webhookId);
  }

  /** How many webhooks this process keeps state for (for tests and tools). */
  get webhooksTracked(): number {
    return this.#unanswered.tracked;
  }

  /** One pass for tests and tools: claims what is due now, sends it, and waits for those results. Returns how many were sent. */
  async runOnce(): Promise<number> {
    const started = await this.#pass(true);
    await Promise.allSettled(started);
    return started.length;
  }

  /**
   * Asks for a pass; `listing`, one that lists the due webhooks (a poll tick, a wake-up: what finds
   * webhooks this node does not know due, and retries that came due with time); else a refill,
   * which claims only for the webhooks known due (#known) and reads nothing to decide.
   */
  #schedulePass(listing: boolean): void {
    if (listing) this.#listNext = true;
    if (this.#stopped || this.#passScheduled) return;
    this.#passScheduled = true;
    setImmediate(() => {
      this.#passScheduled = false;
      if (this.#stopped) return;
      // Each started row's promise is the recording of its result, which #start already handles.
      this.#pass().catch((err: unknown) => this.#ctx.log.error({ err }, 'dispatcher pass failed'));
    });
  }

  /** Runs a pass once the one before it (if any) is over; `listing` makes it list whatever was asked. */
  #pass(listing = false): Promise<Promise<void>[]> {
    const previous = this.#current;
    const run = (async () => {
      if (previous)
        await previous.then(
          () => undefined,
          () => undefined,
        );
      const lists = listing || this.#listNext;
      this.#listNext = false;
      return this.#claimAndQueue(lists);
    })();
    this.#current = run;
    const clear = () => {
      if (this.#current === run) this.#current = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /** Claims a webhook may hold: CLAIM_ROUNDS of the send slots it may use now, more while this node has a small part of them (webhookClaimCapacity). */
  #claimsOf(webhook: { id: string; orgId: string }): number {
    const whole = this.#unanswered.slotsOf(webhook.id);
    return webhookClaimCapacity(this.#slotsOf(webhook.id, webhook.orgId), whole, !this.#slow.isSlow(webhook.id));
  }

  /**
   * Whether a pass claims for this webhook: only once it is down to its last round of claims, the
   * point where a finished send asks for a pass (claim-shares.ts refillDue). Rows it holds beyond
   * that keep its slots busy until then, and a pass that a poll or a wake-up starts in between would
   * claim a batch of a few rows, its transaction and its reads costing the same as a whole one.
   */
  #wantsClaims(webhook: { id: string; orgId: string }): boolean {
    const held = this.#slots.claimedBy(webhook.id);
    return held < this.#claimsOf(webhook) && held <= this.#slotsOf(webhook.id, webhook.orgId);
  }

  /** How many more claims an organization may take: CLAIM_ROUNDS of its send slots, less what it holds. */
  #orgRoom(orgId: string, held: ReadonlyMap<string, number>): number {
    return claimCapacity(this.#orgSlotsOf(orgId)) - (held.get(orgId) ?? 0);
  }

  /**
   * The webhooks a pass may claim for: with `listing`, those the database lists due now beside
   * the unordered ones whose last claim came back full, which then replace what the node knew; else
   * those known due (#known), read from nothing. An unordered webhook whose last claim came back
   * full is due by what that claim read, so a listing does not probe it again: its next claim goes
   * on from its cursor, and a change to it (disabled, moved, reordered) makes that claim come back
   * empty (WEBHOOK_AS_KNOWN), after which the next listing reads it anew. An ordered webhook is
   * listed again, and claimed from its oldest due row: the rows its last results let go are behind
   * its cursor.
   */
  async #candidates(listing: boolean, now: number): Promise<readonly DueWebhook[]> {
    if (!listing) return [...this.#known.values()].map((k) => k.webhook);
    const full = [...this.#known.values()].filter((k) => k.after !== undefined && (k.webhook.ordering ?? 'none') === 'none');
    const listed = await dueWebhooks(
      this.#ctx.db,
      now,
      full.map((k) => k.webhook.id),
    );
    this.#known.clear();
    for (const k of full) this.#known.set(k.webhook.id, k);
    for (const w of listed) this.#known.set(w.id, { webhook: w });
    return [...full.map((k) => k.webhook), ...listed];
  }

  /**
   * Claims up to the free claim capacity, then starts what the send slots allow; returns one promise
   * per claimed row, resolved when its result is recorded. Without `listing`, a pass that finds no
   * known webhook wanting claims runs no statement at all.
   */
  async #claimAndQueue(listing: boolean): Promise<Promise<void>[]> {
    const budget = claimCapacity(this.#ctx.config.delivery.concurrency);
    const db = this.#ctx.db;
    const now = this.#ctx.clock.now();
    const leaseUntil = now + this.#leases.ms;
    // Before the webhooks are read: a change signalled from here on makes these rows read again.
    const claimRead = this.#leases.claimRead(now, leaseUntil);
    const slots = this.#slots;
    const due: DueWebhook[] = [];
    const held = slots.claimsByOrg();
    for (const w of await this.#candidates(listing, now)) {
      await this.#unanswered.firstSight(w.id);
      if (this.#wantsClaims(w) && this.#orgRoom(w.orgId, held) > 0) due.push(w);
    }
    if (due.length === 0) return [];
    // Every claim taken by the one organization that has work: no share to give, no transaction to open.
    if (slots.claimed >= budget && slots.organizations === 1 && due.every((w) => slots.holdsFor(w.orgId))) return [];
    const byOrg = this.#planner.plan(due);
    // Each webhook's room as the pass begins: sends that end while its claims run would otherwise
    // open room for another round of claims, a statement of a few rows each.
    const roomOf = new Map(due.map((w) => [w.id, this.#claimsOf(w) - slots.claimedBy(w.id)]));
    // Per webhook claimed for: whether its claim came back full (more rows are due) and the last row
    // it took, kept once committed.
    const full = new Map<string, { webhook: DueWebhook; more: boolean; after: ClaimCursor | undefined }>();
    // Not while another process holds the write lock: the next tick or finished send tries again,
    // and meanwhile the event loop serves requests and sends instead of waiting in SQLite.
    const attempt = await db.tryTransaction(
      (tx) =>
        this.#planner.claim(
          byOrg,
          held,
          budget,
          (webhookId) => roomOf.get(webhookId) ?? 0,
          async (webhook, limit) => {
            // The claim reads the webhook as this pass knows it: a refill made no listing to read it
            // in. After a full claim, the next starts after that claim's last row, so a backlog is
            // walked once, not from its oldest due entry at every claim.
            const rows = await claimDue(
              tx,
              webhook.id,
              this.owner,
              now,
              leaseUntil,
              limit,
              this.#leases.heldIds(webhook.id),
              webhook.ordering,
              webhook.url,
              this.#known.get(webhook.id)?.after,
            );
            full.set(webhook.id, { webhook, more: rows.length >= limit, after: rows.at(-1) });
            return rows;
          },
          (orgId) => this.#orgRoom(orgId, held),
        ),
      { durability: 'bookkeeping' },
    );
    if (!attempt.ok) return [];
    for (const [id, { webhook, more, after }] of full) {
      if (more) this.#known.set(id, { webhook, after });
      else this.#known.delete(id);
    }
    const claimed = attempt.value;
    if (claimed.length === 0) return [];
    // A stop began while the claim was made: stop() waits for this pass, then gives every lease back.
    if (this.#stopped) return [];

    const keys = await this.#signing.keysOf(claimed);
    const bodies = await this.#signing.bodiesOf(claimed, keys);
    const secrets = await this.#signing.secretsOf(claimed);
    const v1aKeys = await this.#signing.v1aKeysOf(claimed);
    const started: Promise<void>[] = [];
    for (const { webhook, rows } of claimed) {
      const key = keys.get(webhook.orgId)!;
      const secretKeys = secrets.get(webhook.id)!;
      this.#leases.hold(webhook.id, rows);
      for (const row of rows) {
        const event = bodies.get(row.eventId);
        const job = jobOf(
          row,
          webhook,
          {
            eventType: event?.type ?? '',
            body: event?.body ?? '',
            traceContext: event?.traceContext ?? null,
            keyId: key instanceof Error ? null : key.keyId,
            signature: this.#signing.signatureFor(row.eventId, key, event),
            claim: claimRead,
            secretKeys,
            v1aKey: v1aKeys.get(webhook.id),
          },
          () => this.#leases.letGo(webhook.id, row.id),
        );
        job.signature.catch(() => undefined); // handled where the job awaits it
        this.#inflight.add(job.done);
        slots.queue(job);
        started.push(job.done);
      }
    }
    this.#claimed += started.length;
    slots.pump(this.#startJob);
    return started;
  }

  /** The send slots started this job. */
  #start(job: Job): void {
    void this.#deliver(job)
      .catch((err: unknown) => this.#ctx.log.error({ err, deliveryId: job.id }, 'delivery bookkeeping failed'))
      .finally(() => {
        this.#inflight.delete(job.done);
        job.resolve();
        // On an ordered webhook the row behind this one becomes eligible once this result is recorded.
        // A listing finds it: the row behind may be due or not, and only the database knows.
        if ((job.webhook.ordering ?? 'none') !== 'none' && this.#started) this.#schedulePass(true);
      });
  }

  /**
   * One job's stages: prepare (its signature, then the check that it is still to go), call (the
   * send), completed (an answer or none: what it does to the webhook's slots), then handled (its
   * result recorded with its batch). A job that is not to go anymore ends after prepare, unrecorded.
   */
  async #deliver(job: Job): Promise<void> {
    const startedMs = this.#ctx.clock.now();
    let result: SendResult;
    let ends = false;
    try {
      // Prepare. A row signed again because its key was retired is checked once more after that
      // signature: another rotation may have come while it was being made.
      await job.signature;
      for (let checks = 1; ; checks++) {
        const signedWith = job.keyId;
        if (!(await this.#stillToSend(job))) return;
        await job.signature;
        if (job.keyId === signedWith || checks === 3) break;
      }
      // Call, in a span continuing the event's trace; its traceparent goes with the request.
      const signature = await job.signature;
      // Without tracing, no span, context or closure is made per send.
      result = tracingOn()
        ? await inSpan('webhook delivery', deliverySpan(job), async (span) => {
            const headers = sendHeaders(job, signature, this.#ctx.clock.now(), activeTraceparent() || undefined);
            const sent = await this.#sender.send(job, headers);
            span?.setAttribute('borderd.outcome', attemptOutcomeLabel(sent));
            if (sent.statusCode !== null) span?.setAttribute('http.response.status_code', sent.statusCode);
            return sent;
          })
        : await this.#sender.send(job, sendHeaders(job, signature, this.#ctx.clock.now()));
      // Completed, before the slot frees (the next queued row of this webhook starts at once): a
      // result that will disable the webhook stops its queued rows now, not once the batch is
      // recorded; an endpoint that gave no answer goes down to one send at a time; and one that took
      // delivery.slowAfterMs counts as slow (slow-endpoints.ts).
      this.#unanswered.heard(job.webhook.id, result.statusCode);
      this.#slow.heard(job.webhook.id, result.durationMs);
      ends = endsWebhook(this.#policy, job, result);
      if (ends) this.#slots.markEnding(job.webhook);
    } catch (err) {
      // Nothing was sent (the private key could not be opened, the event is gone): a failed attempt like any other.
      result = signingFailed(err);
      job.keyId = null;
    } finally {
      this.#sendOver(job);
    }
    // Cut off by the end of a stop's grace: not an attempt (its outcome is unknown); stop() gives the lease back.
    if (this.#sender.cutOff && result.statusCode === null) {
      if (ends) this.#slots.endingOver(job.webhook.id);
      return;
    }
    // Handled.
    await new Promise<void>((done) => this.#recorder.add({ job, startedMs, result, done, endsWebhook: ends }));
  }

  /**
   * The end of prepare: whether the row is still ours and still to go (leases.ts), with its
   * webhook's url now, its cycle's due time, and a signature by a key that is not retired; a row
   * whose claim is fresh goes with what that claim read.
   */
  async #stillToSend(job: Job): Promise<boolean> {
    const target = await this.#leases.beforeSend(job, this.#slots.isEnding(job.webhook.id));
    if (target === 'gone') return false;
    if (target === 'fresh' || target === 'unread') return true;
    if (target.url !== job.webhook.url) job.webhook = { ...job.webhook, url: target.url };
    // Replayed while it waited (a new cycle at step 0, a new due time): this send is that cycle's.
    job.nextAttemptAt = target.nextAttemptAt;
    // A failure here is a signing failure like any other (the caller's catch).
    if (target.keyRetired) await this.#signing.resign(job);
    return true;
  }

  /**
   * A send of this job is over (its result is not recorded yet): its slot goes to the next queued
   * job at once, and a pass is asked for once its claims run low (claim-shares.ts).
   */
  #sendOver(job: Job): void {
    this.#slots.sendOver(job);
    if (this.#stopped) return;
    this.#slots.pump(this.#startJob);
    const id = job.webhook.id;
    const refill = this.#planner.refillDue(
      this.#slots.claimedBy(id),
      this.#slotsOf(id, job.webhook.orgId),
      this.#slots.claimed,
      this.#ctx.config.delivery.concurrency,
    );
    if (this.#started && refill) this.#schedulePass(false);
  }
}

/**
 * The ledger of claimed jobs until their send is over: each is queued (waiting for a send slot) or
 * sending, counted per webhook, per organization and for the process, and its webhook may be ending
 * (a result that disables it is not recorded yet). Claims are what is queued or sending; the
 * ledger also decides which queued job takes a free slot, within three bounds: the process's slots,
 * each organization's, each webhook's; and the sends of slow endpoints together hold at most half of
 * the process's slots and half of their organization's, so the other half always stays for
 * endpoints that answer.
 *
 * @module delivery/dispatch/send-slots
 */

/** What the ledger needs of a job: whose it is. */
export interface SlotHolder {
  readonly webhook: { readonly id: string; readonly orgId: string };
}

/** What bounds the sends beyond the process's and each webhook's slots. */
export interface SlotLimits {
  /** The send slots an organization may use now; unbounded without it. */
  readonly orgSlotsOf?: (orgId: string) => number;
  /** Whether a webhook's endpoint is slow now (slow-endpoints.ts); none is without it. */
  readonly isSlow?: (webhookId: string) => boolean;
}

/** The most sends slow endpoints may hold of `slots`: half of them, and at least one. */
export const slowPart = (slots: number): number => Math.max(1, Math.floor(slots / 2));

/** An organization's jobs, or the process's. */
class Tally {
  queued = 0;
  sending = 0;
  /** Sends to endpoints that were slow when the send started. */
  slowSending = 0;
  /** A job holds a claim while queued or sending; once its send is over it no longer counts, while its result waits to be written. */
  get claimed(): number {
    return this.queued + this.sending;
  }
}

/** One webhook's jobs: its queue (its jobs waiting for a slot, signed meanwhile), and its sends. */
class WebhookEntry<J> {
  readonly queue: J[] = [];
  sending = 0;
  /** Its results that disable it and are not recorded yet: the database still says enabled. */
  ending = 0;
  constructor(readonly orgId: string) {}
  get claimed(): number {
    return this.queue.length + this.sending;
  }
}

export class SendSlots<J extends SlotHolder> {
  readonly #webhooks = new Map<string, WebhookEntry<J>>();
  /** Webhooks with a queued job, in turn order: one that just started a send goes to the back. */
  readonly #turns = new Map<string, WebhookEntry<J>>();
  /** Organizations holding claims. */
  readonly #orgs = new Map<string, Tally>();
  /** The process's jobs: moved with the others rather than summed over them, since the pump reads it for every job it starts. */
  readonly #all = new Tally();
  readonly #delivery: { readonly concurrency: number };
  readonly #slotsOf: (webhookId: string, orgId: string) => number;
  readonly #orgSlotsOf: (orgId: string) => number;
  readonly #isSlow: (webhookId: string) => boolean;
  /** Jobs sending to an endpoint that was slow when they started: what they free when over. */
  readonly #slowSends = new WeakSet<J>();

  /**
   * @param delivery the process's send slots (`concurrency`)
   * @param slotsOf the send slots a webhook may use now
   * @param limits an organization's send slots, and which endpoints are slow
   */
  constructor(delivery: { readonly concurrency: number }, slotsOf: (webhookId: string, orgId: string) => number, limits: SlotLimits = {}) {
    this.#delivery = delivery;
    this.#slotsOf = slotsOf;
    this.#orgSlotsOf = limits.orgSlotsOf ?? (() => Infinity);
    this.#isSlow = limits.isSlow ?? (() => false);
  }

  /** Claims the process holds. */
  get claimed(): number {
    return this.#all.claimed;
  }

  /** Sends in flight in the process. */
  get sending(): number {
    return this.#all.sending;
  }

  /** How many organizations hold claims. */
  get organizations(): number {
    return this.#orgs.size;
  }

  claimedBy(webhookId: string): number {
    return this.#webhooks.get(webhookId)?.claimed ?? 0;
  }

  sendingTo(webhookId: string): number {
    return this.#webhooks.get(webhookId)?.sending ?? 0;
  }

  /** Whether the webhook has a job queued or sending. */
  holds(webhookId: string): boolean {
    return this.claimedBy(webhookId) > 0;
  }

  holdsFor(orgId: string): boolean {
    return this.#orgs.has(orgId);
  }

  /** Sends in flight and jobs queued for a slot, per organization holding claims: who holds what. */
  byOrg(): Map<string, { sending: number; queued: number }> {
    const out = new Map<string, { sending: number; queued: number }>();
    for (const [orgId, tally] of this.#orgs) out.set(orgId, { sending: tally.sending, queued: tally.queued });
    return out;
  }

  /** Claims held per organization: what the next claims are shared from. */
  claimsByOrg(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [orgId, tally] of this.#orgs) out.set(orgId, tally.claimed);
    return out;
  }

  /** A claimed job waits for one of its webhook's send slots. */
  queue(job: J): void {
    const { id, orgId } = job.webhook;
    const entry = this.#entry(id, orgId);
    entry.queue.push(job);
    if (!this.#turns.has(id)) this.#turns.set(id, entry);
    let org = this.#orgs.get(orgId);
    if (!org) this.#orgs.set(orgId, (org = new Tally()));
    org.queued++;
    this.#all.queued++;
  }

  /**
   * Starts queued jobs while their webhook, their organization and the process have free send
   * slots, one job per webhook in turn (a webhook that just started one goes to the back), so a
   * webhook with a deep backlog cannot keep the process's slots from the others' claimed rows. A
   * slow endpoint's job also waits while slow sends hold their part (slowPart) of its
   * organization's or the process's slots.
   */
  pump(start: (job: J) => void): void {
    const { concurrency } = this.#delivery;
    let progress = true;
    while (progress && this.#all.sending < concurrency) {
      progress = false;
      const share = this.#sendShare(concurrency);
      for (const [webhookId, entry] of [...this.#turns]) {
        if (this.#all.sending >= concurrency) break;
        if (entry.queue.length === 0) {
          this.#turns.delete(webhookId);
          continue;
        }
        const org = this.#orgs.get(entry.orgId)!;
        const slow = this.#isSlow(webhookId);
        if (!this.#mayStart(webhookId, entry, org, slow, concurrency)) continue;
        if (share !== undefined && org.sending >= share) continue;
        const job = entry.queue.shift()!;
        entry.sending++;
        org.queued--;
        org.sending++;
        this.#all.queued--;
        this.#all.sending++;
        if (slow) {
          this.#slowSends.add(job);
          org.slowSending++;
          this.#all.slowSending++;
        }
        start(job);
        progress = true;
        this.#turns.delete(webhookId);
        if (entry.queue.length) this.#turns.set(webhookId, entry);
      }
    }
  }

  /** A job's send is over (its result is not recorded yet): its send slot and its claim are free. */
  sendOver(job: J): void {
    const { id, orgId } = job.webhook;
    const entry = this.#webhooks.get(id);
    if (entry) {
      entry.sending--;
      this.#forgetIfIdle(id, entry);
    }
    const org = this.#orgs.get(orgId);
    const slow = this.#slowSends.delete(job);
    if (org) {
      org.sending--;
      if (slow) org.slowSending--;
      if (org.claimed <= 0) this.#orgs.delete(orgId);
    }
    this.#all.sending--;
    if (slow) this.#all.slowSending--;
  }

  /**
   * Queued jobs leave the ledger unsent: every one at a stop, or those of the webhooks `which`
   * names by webhook and organization (ones this node may no longer send to). Returns them.
   */
  dropQueued(which: (webhookId: string, orgId: string) => boolean = () => true): J[] {
    const dropped: J[] = [];
    for (const [webhookId, entry] of this.#turns) {
      if (!which(webhookId, entry.orgId)) continue;
      const org = this.#orgs.get(entry.orgId)!;
      for (const job of entry.queue) {
        dropped.push(job);
        org.queued--;
        this.#all.queued--;
      }
      entry.queue.length = 0;
      if (org.claimed <= 0) this.#orgs.delete(entry.orgId);
      this.#forgetIfIdle(webhookId, entry);
      this.#turns.delete(webhookId);
    }
    return dropped;
  }

  /** A result that disables its webhook came back: the webhook's queued jobs must not go out until it is recorded. */
  markEnding(webhook: SlotHolder['webhook']): void {
    this.#entry(webhook.id, webhook.orgId).ending++;
  }

  /** That result is recorded (or could not be): the database says what the webhook's state is again. */
  endingOver(webhookId: string): void {
    const entry = this.#webhooks.get(webhookId);
    if (!entry) return;
    entry.ending--;
    this.#forgetIfIdle(webhookId, entry);
  }

  isEnding(webhookId: string): boolean {
    return (this.#webhooks.get(webhookId)?.ending ?? 0) > 0;
  }

  /**
   * The most send slots one organization may hold while several have a queued row that could start
   * (its webhook below its send slots): an equal part of the process's slots. Undefined, no limit,
   * while only one organization is waiting, so an organization alone uses every slot and the share
   * costs nothing when nobody else needs a slot. An organization above its share keeps the sends it
   * has; the slots they free go to the others first.
   */
  #sendShare(concurrency: number): number | undefined {
    // Queued jobs are claimed ones: with claims of one organization only, there is nobody to share with.
    if (this.#turns.size < 2 || this.#orgs.size < 2) return undefined;
    const waiting = new Set<string>();
    for (const [webhookId, entry] of this.#turns) {
      const org = this.#orgs.get(entry.orgId)!;
      if (entry.queue.length && this.#mayStart(webhookId, entry, org, this.#isSlow(webhookId), concurrency)) waiting.add(entry.orgId);
    }
    return waiting.size > 1 ? Math.ceil(concurrency / waiting.size) : undefined;
  }

  /** Whether the webhook's next queued job may start, by its own slots, its organization's, and the part slow endpoints may hold. */
  #mayStart(webhookId: string, entry: WebhookEntry<J>, org: Tally, slow: boolean, concurrency: number): boolean {
    if (entry.sending >= this.#slotsOf(webhookId, entry.orgId)) return false;
    const orgSlots = this.#orgSlotsOf(entry.orgId);
    if (org.sending >= orgSlots) return false;
    if (!slow) return true;
    return org.slowSending < slowPart(Math.min(orgSlots, concurrency)) && this.#all.slowSending < slowPart(concurrency);
  }

  #entry(webhookId: string, orgId: string): WebhookEntry<J> {
    let entry = this.#webhooks.get(webhookId);
    if (!entry) this.#webhooks.set(webhookId, (entry = new WebhookEntry<J>(orgId)));
    return entry;
  }

  #forgetIfIdle(webhookId: string, entry: WebhookEntry<J>): void {
    if (entry.claimed <= 0 && entry.ending <= 0) this.#webhooks.delete(webhookId);
  }
}

/**
 * What a pass's claimed rows need before they can go: each event's body, read once and kept between
 * passes, each organization's current key, and each (event, key) signature, from the process's
 * EventSignatures (in memory, in event_signatures, else made on libuv's thread pool). Also the
 * signing again of a row whose key was retired while it waited, and each webhook's Standard
 * Webhooks secrets and, for a webhook that opted in to `v1a`, its organization's Ed25519 key, from
 * which a send's `webhook-*` headers are made at its send time.
 *
 * The keys, secrets and v1a opt-ins are kept per node for at most CLAIM_FRESH_MS and not used past
 * a change signalled since their read (SignalledChanges), the rule a claim's own read follows (leases.ts): a node's passes
 * come every few milliseconds while it drains, and each would otherwise read them again, a fixed
 * set of statements per pass that grows with the nodes as their batches shrink.
 *
 * @module delivery/dispatch/signing
 */
import { remember } from '../../domain/bounded-map.js';
import type { Db } from '../../db/database.js';
import { bodiesWithSignatures, type EventBodyRow } from '../../store/event-signatures.js';
import { eventBodies } from '../../store/events.js';
import type { EventSignatures } from '../event-signatures.js';
import type { KeyObject } from 'node:crypto';
import type { Ed25519Keys } from '../ed25519-keys.js';
import type { WebhookSecretKeys } from '../webhook-secrets.js';
import { webhooksWithV1a } from '../../store/webhook-v1a.js';
import { standardWebhookHeaders, WEBHOOK_SIGNATURE_HEADER } from '../../verify/standard-webhooks.js';
import { signatureV1a } from '../../verify/standard-webhooks-v1a.js';
import type { SigningKey } from '../signing-keys.js';
import type { Claimed } from './claim-shares.js';
import type { Job } from './job.js';
import type { ReadMark, SignalledChanges } from './leases.js';

/** Event bodies kept in memory: a fan-out claims the same event for every webhook within a few passes. */
export const BODY_CACHE = 2_000;

export interface EventBody {
  type: string;
  body: string;
  /** The traceparent the event was written under, which its delivery attempts continue. */
  traceContext: string | null;
}

/** What keeps a read: the clock and the process's count of changes signalled (leases.ts). */
export interface KeptReads {
  now: () => number;
  changes: SignalledChanges;
}

/**
 * Values read from the database, each kept while it is at most CLAIM_FRESH_MS old and no change was
 * signalled since its read began (SignalledChanges). Without a clock nothing is kept (every pass reads).
 */
class FreshReads<V> {
  readonly #values = new Map<string, { read: ReadMark; value: V }>();

  constructor(private readonly kept: KeptReads | undefined) {}

  get(id: string): V | undefined {
    const kept = this.#values.get(id);
    if (!kept || !this.kept) return undefined;
    if (this.kept.changes.isFresh(kept.read, this.kept.now())) return kept.value;
    this.#values.delete(id);
    return undefined;
  }

  /** Where a read begins: what it reads is kept only if no change comes before it ends. */
  begin(): ReadMark | undefined {
    return this.kept?.changes.mark(this.kept.now());
  }

  keep(read: ReadMark | undefined, id: string, value: V): void {
    if (read && this.kept?.changes.unchangedSince(read)) remember(this.#values, id, { read, value }, KEPT_READS);
  }
}

/** Webhooks (or organizations) whose reads a node keeps at most. */
const KEPT_READS = 10_000;

export class Signing {
  readonly #db: Db;
  readonly #signatures: EventSignatures;
  readonly #bodies = new Map<string, EventBody>();
  readonly #bodyCacheSize: number;
  readonly #secretKeys: WebhookSecretKeys | undefined;
  readonly #ed25519: Ed25519Keys | undefined;
  readonly #secrets: FreshReads<Buffer[]>;
  readonly #optedIn: FreshReads<boolean>;
  readonly #v1aKeys: FreshReads<KeyObject>;
  readonly #keys: FreshReads<SigningKey>;
  /** Signatures made for this dispatcher's sends (node:crypto sign calls), across every organization and key. */
  made = 0;

  /**
   * Without `secretKeys`, sends carry `x-signature` alone (tests of the RSA path); without `ed25519`,
   * no v1a; without `kept`, every pass reads keys, secrets and opt-ins again.
   */
  constructor(
    db: Db,
    signatures: EventSignatures,
    bodyCacheSize = BODY_CACHE,
    secretKeys?: WebhookSecretKeys,
    ed25519?: Ed25519Keys,
    kept?: KeptReads,
  ) {
    this.#db = db;
    this.#ed25519 = ed25519;
    this.#signatures = signatures;
    this.#bodyCacheSize = bodyCacheSize;
    this.#secretKeys = secretKeys;
    this.#secrets = new FreshReads(kept);
    this.#optedIn = new FreshReads(kept);
    this.#v1aKeys = new FreshReads(kept);
    this.#keys = new FreshReads(kept);
  }

  /**
   * The keys of each claimed webhook's secrets that sign now (current first, then a replaced one
   * whose rotation window is open), or why they cannot be had: one read per webhook unless kept
   * (above). An empty list: a webhook made before secrets existed, sent with `x-signature` alone
   * until its secret is first rotated.
   */
  async secretsOf(claimed: readonly Claimed[]): Promise<Map<string, Buffer[] | Error>> {
    const secrets = new Map<string, Buffer[] | Error>();
    for (const { webhook } of claimed) {
      if (secrets.has(webhook.id)) continue;
      const kept = this.#secrets.get(webhook.id);
      if (kept) {
        secrets.set(webhook.id, kept);
        continue;
      }
      try {
        const read = this.#secrets.begin();
        const keys = this.#secretKeys ? await this.#secretKeys.keysOf(webhook.id) : [];
        this.#secrets.keep(read, webhook.id, keys);
        secrets.set(webhook.id, keys);
      } catch (err) {
        secrets.set(webhook.id, err instanceof Error ? err : new Error(String(err)));
      }
    }
    return secrets;
  }

  /**
   * For each claimed webhook that opted in to v1a, its organization's current Ed25519 key (made on
   * its first use), or why it cannot be had: one read for the opt-ins not kept and one per
   * organization whose key is not kept (above).
   */
  async v1aKeysOf(claimed: readonly Claimed[]): Promise<Map<string, KeyObject | Error>> {
    const keys = new Map<string, KeyObject | Error>();
    if (!this.#ed25519) return keys;
    const optedIn = new Set<string>();
    const unread: string[] = [];
    for (const { webhook } of claimed) {
      const kept = this.#optedIn.get(webhook.id);
      if (kept === undefined) unread.push(webhook.id);
      else if (kept) optedIn.add(webhook.id);
    }
    if (unread.length) {
      const read = this.#optedIn.begin();
      const found = await webhooksWithV1a(this.#db, unread);
      for (const id of unread) {
        this.#optedIn.keep(read, id, found.has(id));
        if (found.has(id)) optedIn.add(id);
      }
    }
    const byOrg = new Map<string, KeyObject | Error>();
    for (const { webhook } of claimed) {
      if (!optedIn.has(webhook.id)) continue;
      let key = byOrg.get(webhook.orgId) ?? this.#v1aKeys.get(webhook.orgId);
      if (!key) {
        try {
          const read = this.#v1aKeys.begin();
          key = (await this.#ed25519.currentKey(webhook.orgId)).key;
          this.#v1aKeys.keep(read, webhook.orgId, key);
        } catch (err) {
          key = err instanceof Error ? err : new Error(String(err));
        }
        byOrg.set(webhook.orgId, key);
      }
      keys.set(webhook.id, key);
    }
    return keys;
  }

  /**
   * The bodies of the claimed rows' events: once per event, for every webhook it fans out to. This
   * pass's own map, not the cache alone: putting the bodies read now into the bounded cache can push
   * out ones this pass found there, and a row whose body was pushed out would be recorded as a
   * signing failure. The bodies not cached are read with their stored signatures by the
   * organization's current key (`keys`, from keysOf) in one statement per key; the signatures of
   * cached bodies that are not in memory are read in one more (EventSignatures.preload).
   */
  async bodiesOf(claimed: readonly Claimed[], keys: ReadonlyMap<string, SigningKey | Error> = new Map()): Promise<Map<string, EventBody>> {
    const bodies = new Map<string, EventBody>();
    /** Event ids whose body is to be read, and those whose body is cached, by the key id that signs them ('' for none). */
    const missing = new Map<string, Set<string>>();
    const cachedByKey = new Map<string, string[]>();
    for (const { webhook, rows } of claimed) {
      const key = keys.get(webhook.orgId);
      const keyId = key && !(key instanceof Error) ? key.keyId : '';
      for (const { eventId } of rows) {
        const cached = this.#bodies.get(eventId);
        if (cached) {
          bodies.set(eventId, cached);
          if (!keyId) continue;
          let ids = cachedByKey.get(keyId);
          if (!ids) cachedByKey.set(keyId, (ids = []));
          ids.push(eventId);
        } else {
          let ids = missing.get(keyId);
          if (!ids) missing.set(keyId, (ids = new Set()));
          ids.add(eventId);
        }
      }
    }
    for (const [keyId, ids] of missing) {
      const read: EventBodyRow[] = keyId ? await bodiesWithSignatures(this.#db, keyId, [...ids]) : await eventBodies(this.#db, [...ids]);
      for (const e of read) {
        const event = { type: e.type, body: e.body, traceContext: e.traceContext };
        bodies.set(e.id, event);
        remember(this.#bodies, e.id, event, this.#bodyCacheSize);
        if (e.signature) this.#signatures.keep(e.id, keyId, e.signature);
      }
    }
    for (const [keyId, ids] of cachedByKey) await this.#signatures.preload(keyId, ids);
    return bodies;
  }

  /**
   * The current key of each organization involved (or why it cannot be used): one read of its key
   * id unless kept (above); the private key is unsealed once per key id. A row signed with a key
   * retired since is signed again before its send (the dispatcher's check). The signatures already
   * made with these keys (by this process or another, before a restart) are read with the bodies
   * (bodiesOf).
   */
  async keysOf(claimed: readonly Claimed[]): Promise<Map<string, SigningKey | Error>> {
    const keys = new Map<string, SigningKey | Error>();
    for (const { webhook } of claimed) {
      if (keys.has(webhook.orgId)) continue;
      const kept = this.#keys.get(webhook.orgId);
      if (kept) {
        keys.set(webhook.orgId, kept);
        continue;
      }
      try {
        const read = this.#keys.begin();
        const key = await this.#signatures.signer.currentKey(webhook.orgId);
        this.#keys.keep(read, webhook.orgId, key);
        keys.set(webhook.orgId, key);
      } catch (err) {
        keys.set(webhook.orgId, err instanceof Error ? err : new Error(String(err)));
      }
    }
    return keys;
  }

  /** A claimed row's signature; rejected when its key or its event could not be had (a signing failure). */
  signatureFor(eventId: string, key: SigningKey | Error, event: EventBody | undefined): Promise<string> {
    if (key instanceof Error) return Promise.reject(key);
    return event ? this.#signature(eventId, key, event.body) : Promise.reject(new Error(`event ${eventId} not found`));
  }

  /**
   * Signs a row again with its organization's current key: its key was retired while it waited,
   * and a receiver that fetched the new public key could not check the old signature. Throws when
   * the key cannot be had: a signing failure like any other.
   */
  async resign(job: Job): Promise<void> {
    const key = await this.#signatures.signer.currentKey(job.webhook.orgId);
    job.signature = this.#signature(job.eventId, key, job.body);
    job.keyId = key.keyId;
  }

  /** The signature of (event, key): made once per process, on the thread pool, and reused by every endpoint, retry and stream. */
  #signature(eventId: string, key: SigningKey, body: string): Promise<string> {
    const { signature, made } = this.#signatures.signatureOf(eventId, key, body);
    if (made) this.made++;
    return signature;
  }
}

/**
 * The Standard Webhooks headers of one send: `webhook-id` is the event id (the same on every retry,
 * what a receiver dedupes on) and `webhook-timestamp` this attempt's send time, so a captured
 * delivery stops verifying once the receiver's tolerance has passed. None for a webhook without a
 * secret nor v1a; throws (a signing failure) when its secrets or its v1a key could not be opened.
 */
export function standardHeaders(job: Job, nowMs: number): Record<string, string> {
  if (job.secretKeys instanceof Error) throw job.secretKeys;
  if (job.v1aKey instanceof Error) throw job.v1aKey;
  const timestamp = Math.floor(nowMs / 1000);
  const headers: Record<string, string> = standardWebhookHeaders(job.secretKeys, job.eventId, timestamp, job.body);
  // v1a goes after the v1 signatures; a webhook without a secret sends it alone.
  if (job.v1aKey)
    headers[WEBHOOK_SIGNATURE_HEADER] = [headers[WEBHOOK_SIGNATURE_HEADER], signatureV1a(job.v1aKey, job.eventId, timestamp, job.body)]
      .filter(Boolean)
      .join(' ');
  else if (job.secretKeys.length === 0) return {};
  return headers;
}

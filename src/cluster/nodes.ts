/**
 * The serve processes sharing one database. Each process has an id (`host:pid:random`, also the
 * owner of the delivery leases it takes), a row in `nodes` it refreshes every nodes.heartbeatMs,
 * and on every heartbeat looks for dead processes and takes back the deliveries they held, so a
 * crash delays its deliveries by seconds instead of a whole lease (delivery.leaseMs).
 *
 * A node is dead when its row was not refreshed for nodes.deadAfterMs while this node could see
 * the database, or, on this host, when its pid is gone. (A restarted container gets its old pid
 * back, so its previous run is known dead by the heartbeat only.) The dead are found in the nodes
 * table alone, so a heartbeat reads no delivery: a process registers before its first claim and
 * again at the heartbeat after another declared it dead, and a holder with no row (one that claimed
 * in between and died) is left to its leases. Taking a dead node's rows back is one pass over the
 * pending rows (takeBackLeases), once per dead node.
 *
 * @module cluster/nodes
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../context.js';
import { withTransaction } from '../db/database.js';
import { takeBackLeases } from '../store/delivery-claims.js';
import { deleteNode, listNodes, registerNode, touchNode, type NodeRow } from '../store/nodes.js';
import type { Worker } from '../worker.js';
import { shareOfSlots } from './shares.js';

/** This process's id among the nodes: the owner of every lease it takes. */
export function newNodeId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Whether a process with this pid runs on this host (signal 0 checks without sending anything). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface TakeoverResult {
  /** The dead nodes, whose rows were taken back. */
  owners: string[];
  rows: number;
}

export class NodeRegistry implements Worker {
  readonly name = 'nodes';
  readonly id: string;
  readonly #ctx: AppContext;
  readonly #host = hostname();
  readonly #alive: (pid: number) => boolean;
  #timer: NodeJS.Timeout | undefined;
  #beat: Promise<void> | undefined;
  /**
   * Since when this node's heartbeats reach the database without a miss (0: since before it
   * started). Another node's silence counts only from then: while the database was away from
   * everyone, every node was silent, and none of them is dead for it.
   */
  #seeingSince = 0;
  #missed = false;
  /** The live nodes' ids as of the last heartbeat, sorted: the same list on every node, give or take a heartbeat. */
  #live: readonly string[];

  constructor(ctx: AppContext, id: string, opts: { alive?: (pid: number) => boolean } = {}) {
    this.#ctx = ctx;
    this.id = id;
    this.#alive = opts.alive ?? processAlive;
    this.#live = [id];
  }

  /** The live nodes as of the last heartbeat, this one included. */
  get live(): readonly string[] {
    return this.#live;
  }

  /**
   * This node's part of send slots placed by `key` (cluster/shares.ts). Each node reads the live list
   * at its own heartbeat, so while a node joins the others keep their larger parts for up to a
   * heartbeat, and sends already in flight finish under the parts they started with.
   */
  readonly share = (key: string, slots: number): number => shareOfSlots(slots, key, this.#live.indexOf(this.id), this.#live.length);

  /** Registers this process and takes back what dead ones held, before the dispatcher's first pass. */
  async start(): Promise<void> {
    const now = this.#ctx.clock.now();
    await registerNode(this.#ctx.db, { id: this.id, host: this.#host, pid: process.pid, startedAt: now, seenAt: now });
    await this.takeOver();
    this.#timer = setInterval(() => {
      if (this.#beat) return;
      this.#beat = this.heartbeat()
        .catch((err: unknown) => this.#ctx.log.warn({ err }, 'node heartbeat failed; retrying at the next one'))
        .finally(() => (this.#beat = undefined));
    }, this.#ctx.config.nodes.heartbeatMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beat;
    await deleteNode(this.#ctx.db, this.id).catch((err: unknown) =>
      this.#ctx.log.warn({ err }, 'could not remove this node from the nodes table'),
    );
  }

  /** Says this process is alive (again, should another have declared it dead) and takes over dead ones. */
  async heartbeat(): Promise<void> {
    const now = this.#ctx.clock.now();
    try {
      if (!(await touchNode(this.#ctx.db, this.id, now))) {
        await registerNode(this.#ctx.db, { id: this.id, host: this.#host, pid: process.pid, startedAt: now, seenAt: now });
      }
    } catch (err) {
      this.#missed = true;
      throw err;
    }
    if (this.#missed) {
      this.#missed = false;
      this.#seeingSince = now;
    }
    await this.takeOver();
  }

  /** Takes back the rows of every dead node and forgets it. */
  async takeOver(): Promise<TakeoverResult> {
    const ctx = this.#ctx;
    const now = ctx.clock.now();
    const nodes = await listNodes(ctx.db);
    const dead = nodes.filter((node) => node.id !== this.id && this.#isDead(node, now)).map((node) => node.id);
    let rows = 0;
    for (const owner of dead) {
      rows += await withTransaction(ctx, async (ctx) => {
        const taken = await takeBackLeases(ctx.db, owner);
        await deleteNode(ctx.db, owner);
        return taken;
      });
    }
    const live = [this.id];
    for (const node of nodes) if (node.id !== this.id && !dead.includes(node.id)) live.push(node.id);
    this.#live = live.sort();
    if (rows > 0) {
      ctx.log.warn({ owners: dead, deliveries: rows }, 'took back the deliveries of stopped processes');
      ctx.signals.outbox.emit();
    }
    return { owners: dead, rows };
  }

  #isDead(node: NodeRow, now: number): boolean {
    if (now - Math.max(node.seenAt, this.#seeingSince) > this.#ctx.config.nodes.deadAfterMs) return true;
    return node.host === this.#host && node.pid !== process.pid && !this.#alive(node.pid);
  }
}

/**
 * Which rows a pass claims: how many each webhook, each organization and the process may hold
 * (claim rounds), how the process's claims are split between organizations and an organization's
 * between its webhooks (max-min fair), which due webhook a pass starts with, and when a finished
 * send asks for the next pass.
 *
 * @module delivery/dispatch/claim-shares
 */
import type { ClaimedDelivery, DueWebhook } from '../../store/delivery-claims.js';

/**
 * Rounds of send slots a webhook (perEndpointConcurrency) and the process (concurrency) may hold in
 * claimed rows. A pass costs a write transaction and the read of bodies and their stored
 * signatures whatever it claims (and a listing pass the due query), so it claims several rounds at once: the rows behind the
 * sending round are signed while they wait and start the moment a slot frees, without a pass. A finished
 * send asks for a pass only once its webhook is down to its last round (or, after a pass that ran
 * out of the process's claims, once the process is down to its last round): the pass then refills
 * CLAIM_ROUNDS - 1 rounds at once while that last round keeps the slots busy. The deeper the claims,
 * the longer the last round waits, and the lease must cover that wait (leases.ts): 4 keeps the
 * default lease at 60 s for the default 10 s timeout. docs/performance.md has what each depth costs.
 */
export const CLAIM_ROUNDS = 4;

/** Claims that may be held for `slots` send slots: a webhook's, or the process's. */
export const claimCapacity = (slots: number): number => CLAIM_ROUNDS * slots;

/**
 * Claims a node may hold for one webhook whose send slots (`whole`) it shares with other nodes
 * (`part` of them its own): CLAIM_ROUNDS of its part, and while the endpoint answers quickly
 * (`quick`: not slow, slow-endpoints.ts) its part plus the CLAIM_ROUNDS - 1 rounds of the whole
 * webhook that one node alone refills at once, at most 2 × CLAIM_ROUNDS rounds of its part. Each
 * claim and each pass has a cost of its own whatever it takes (a transaction, the read of bodies),
 * beside the cost of each row, so a refill that shrank with each node's part would make the cost
 * per delivery grow with the nodes; the bound keeps a claimed row's wait
 * under 2 × CLAIM_ROUNDS rounds of quick sends (leases.ts), and a node from holding more than its
 * share of a short backlog's tail.
 */
export function webhookClaimCapacity(part: number, whole: number, quick: boolean): number {
  if (!quick || part <= 0) return claimCapacity(part);
  return Math.min(part + claimCapacity(whole) - whole, 2 * claimCapacity(part));
}

/**
 * Splits the process's claims (`budget`) between organizations, max-min fair, and claims through
 * `claim(orgId, room)`, which returns how many more rows it took (at most `room`; a `room` of 0 or
 * less takes nothing). Every organization that holds claims or has a due webhook gets an equal part
 * of what the ones before it left, taken in order of what they hold already, fewest first. What is
 * left after that round goes to those that used all of their room, in further rounds, so a part one
 * organization does not need goes to the others. An organization alone gets the whole budget less
 * what it holds. One holding more than its part (it claimed while it was alone) claims nothing
 * more, and the others still get theirs: the process may then hold more than `budget` for a while,
 * never more than twice it.
 */
export async function shareClaims(
  dueOrgs: ReadonlySet<string>,
  heldByOrg: ReadonlyMap<string, number>,
  budget: number,
  claim: (orgId: string, room: number) => Promise<number>,
): Promise<void> {
  const held = (orgId: string) => heldByOrg.get(orgId) ?? 0;
  // An organization holding claims takes part even with nothing due now: what it holds is its part.
  const orgs = [...new Set([...dueOrgs, ...heldByOrg.keys()])].sort((a, b) => held(a) - held(b));
  let left = budget;
  // Never more than twice the budget in all, however many organizations came after one that holds too much.
  let cap = 2 * budget - orgs.reduce((sum, orgId) => sum + held(orgId), 0);
  let waiting = orgs.length;
  let hungry: string[] = [];
  const give = async (orgId: string, room: number): Promise<number> => {
    const took = await claim(orgId, Math.min(room, cap));
    cap -= took;
    return took;
  };
  for (const orgId of orgs) {
    const room = Math.ceil(left / waiting) - held(orgId);
    const took = dueOrgs.has(orgId) ? await give(orgId, room) : 0;
    if (room > 0 && took === room) hungry.push(orgId);
    left -= held(orgId) + took;
    waiting--;
  }
  while (left > 0 && cap > 0 && hungry.length) {
    const next: string[] = [];
    let n = hungry.length;
    for (const orgId of hungry) {
      const room = Math.ceil(left / n--);
      const took = await give(orgId, room);
      if (took === room) next.push(orgId);
      left -= took;
    }
    hungry = next;
  }
}

/** The rows one webhook got in a pass. */
export interface Claimed {
  webhook: DueWebhook;
  rows: ClaimedDelivery[];
}

/** The claims of successive passes: where each starts, and whether the last one ran out of the process's claims. */
export class ClaimPlanner {
  /** The last pass ran out of the process's claims with due webhooks left: a finished send asks for a pass sooner. */
  starved = false;
  #cursor = 0;

  /**
   * A pass begins: the due webhooks by organization, each organization's in turn order. Each pass
   * starts one webhook further than the last, so with more due webhooks than free claims each gets
   * its turn.
   */
  plan(due: readonly DueWebhook[]): Map<string, DueWebhook[]> {
    this.starved = false;
    const start = this.#cursor++ % due.length;
    const byOrg = new Map<string, DueWebhook[]>();
    for (const w of [...due.slice(start), ...due.slice(0, start)]) {
      const list = byOrg.get(w.orgId);
      if (list) list.push(w);
      else byOrg.set(w.orgId, [w]);
    }
    return byOrg;
  }

  /**
   * Claims within the organizations' shares (shareClaims) through `take(webhook, limit)`, which
   * leases up to `limit` of the webhook's due rows; `room(webhookId)` is how many more the webhook
   * may hold, `orgRoom(orgId)` how many more the organization may (the claims of its own send
   * slots), so one organization's backlog never fills a pass while another has due rows. Runs
   * inside the pass's write transaction.
   */
  async claim(
    byOrg: ReadonlyMap<string, readonly DueWebhook[]>,
    heldByOrg: ReadonlyMap<string, number>,
    budget: number,
    room: (webhookId: string) => number,
    take: (webhook: DueWebhook, limit: number) => Promise<ClaimedDelivery[]>,
    orgRoom: (orgId: string) => number = () => Infinity,
  ): Promise<Claimed[]> {
    const out: Claimed[] = [];
    const taken = new Map<string, number>();
    const takenByOrg = new Map<string, number>();
    // Gave fewer rows than asked: nothing more is due there, not worth another query in a later round.
    const drained = new Set<string>();
    await shareClaims(new Set(byOrg.keys()), heldByOrg, budget, async (orgId, offered) => {
      const share = Math.min(offered, orgRoom(orgId) - (takenByOrg.get(orgId) ?? 0));
      const roomLeft = (webhook: DueWebhook) => room(webhook.id) - (taken.get(webhook.id) ?? 0);
      let took = 0;
      // The organization's share split max-min between its webhooks, so its first ones in turn never
      // take all of it while the others have due rows: rounds of equal parts, what one leaves to the rest.
      let open = byOrg.get(orgId)!.filter((webhook) => !drained.has(webhook.id) && roomLeft(webhook) > 0);
      while (took < share && open.length) {
        const next: DueWebhook[] = [];
        let n = open.length;
        for (const webhook of open) {
          const limit = Math.min(roomLeft(webhook), Math.ceil((share - took) / n--));
          if (limit <= 0) continue;
          const rows = await take(webhook, limit);
          took += rows.length;
          if (rows.length) {
            taken.set(webhook.id, (taken.get(webhook.id) ?? 0) + rows.length);
            out.push({ webhook, rows });
          }
          if (rows.length < limit) drained.add(webhook.id);
          else if (roomLeft(webhook) > 0) next.push(webhook);
        }
        open = next;
      }
      // Out of the process's claims with rows still due, not out of the organization's own: only that asks for passes sooner.
      if (took >= share && share === offered && open.length) this.starved = true;
      takenByOrg.set(orgId, (takenByOrg.get(orgId) ?? 0) + took);
      return took;
    });
    return out;
  }

  /**
   * Whether a finished send asks for a pass: its webhook is down to its last round of claims, or
   * the last pass ran out of the process's claims and the process is down to its last round.
   */
  refillDue(webhookClaims: number, webhookSlots: number, processClaims: number, concurrency: number): boolean {
    return webhookClaims <= webhookSlots || (this.starved && processClaims <= concurrency);
  }
}

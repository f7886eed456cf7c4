/**
 * How the nodes split a webhook's send slots (delivery.perEndpointConcurrency), so the endpoint gets
 * at most that many requests at once from all nodes together, not that many from each; an
 * organization's (delivery.perOrganizationConcurrency) are split the same way, by its id. Every node
 * computes the same split from the same list of live nodes with no talk between them: each gets
 * slots / nodes, and the remainder goes to the nodes that follow a place derived from the webhook
 * id, so with more nodes than slots different webhooks are sent by different nodes.
 *
 * @module cluster/shares
 */

/** FNV-1a over the id's UTF-16 code units: a stable, well-spread place for a webhook in the node list. */
function placeOf(id: string, nodes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % nodes;
}

/**
 * This node's part of a webhook's `slots`: `rank` is its place among `nodes` live nodes (all sorted
 * the same way). The parts of all ranks add up to `slots`; a part may be 0 when there are more
 * nodes than slots.
 */
export function shareOfSlots(slots: number, webhookId: string, rank: number, nodes: number): number {
  if (nodes <= 1) return slots;
  const turn = (rank - placeOf(webhookId, nodes) + nodes) % nodes;
  return Math.floor(slots / nodes) + (turn < slots % nodes ? 1 : 0);
}

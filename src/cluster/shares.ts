/**
 * How the nodes split a webhook's send slots (delivery.perEndpointConcurrency), so the endpoint gets
 * at most that many requests at once from all nodes together, not that many from each; an
 * organization's (delivery.perOrganizationConcurrency) are split the same way. Every node computes
 * the same split from the same list of live nodes with no talk between them: each gets
 * slots / nodes, and the remainder goes to the nodes that follow a place derived from a key. The
 * dispatcher places a webhook's slots and its organization's by the same key, the organization id,
 * so the node at that place holds a part of both whenever each has a slot at all: a webhook cut to
 * one slot is never on a node without any of its organization's. With more nodes than slots,
 * different organizations are sent by different nodes.
 *
 * @module cluster/shares
 */

/** FNV-1a over the key's UTF-16 code units: a stable, well-spread place for it in the node list. */
function placeOf(id: string, nodes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % nodes;
}

/**
 * This node's part of `slots` placed by `key`: `rank` is its place among `nodes` live nodes (all
 * sorted the same way). The parts of all ranks add up to `slots`; a part may be 0 when there are
 * more nodes than slots. Two slot counts of one key always have a part on the key's own place.
 */
export function shareOfSlots(slots: number, key: string, rank: number, nodes: number): number {
  if (nodes <= 1) return slots;
  const turn = (rank - placeOf(key, nodes) + nodes) % nodes;
  return Math.floor(slots / nodes) + (turn < slots % nodes ? 1 : 0);
}

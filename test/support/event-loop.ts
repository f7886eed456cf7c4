/**
 * Counts the turns of the event loop that other work gets until `until` settles: work that keeps the
 * loop to itself (a synchronous loop, microtasks only) lets none through.
 */
export async function turnsDuring<T>(until: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let settled = false;
  const tick = () => {
    if (settled) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await until.finally(() => (settled = true));
  return { value, turns };
}

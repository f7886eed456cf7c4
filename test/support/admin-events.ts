import { expect } from 'vitest';

// Why: the crash and multi-node tests both write many events to running daemons at once through the admin API.

/**
 * Writes `total` Transaction_Created events for `orgId` through `POST /admin/v1/events`, over
 * `connections` requests at a time spread across the daemons at `urls` in turn; fails the test
 * unless each answers 201. Returns the ids written.
 */
export async function writeEvents(
  urls: readonly string[],
  adminToken: string,
  orgId: string,
  total: number,
  connections = 16,
): Promise<string[]> {
  const created: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      while (next < total) {
        next++;
        const res = await fetch(`${urls[worker % urls.length]}/admin/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ orgId, type: 'Transaction_Created', data: { status: 'Submitted' } }),
        });
        const body = (await res.json()) as { id?: unknown };
        expect(res.status, JSON.stringify(body)).toBe(201);
        created.push(String(body.id));
      }
    }),
  );
  expect(new Set(created).size).toBe(total);
  return created;
}

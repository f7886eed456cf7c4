// Compiled by test/api/route-types.test.ts (not run): what a route declaration may and may not be.
import { z } from 'zod';
import { ApiRegistry } from '../../src/api/route.js';

const api = new ApiRegistry();
const base = { method: 'post', path: '/x', summary: 'x', auth: 'none', responses: { 201: { description: 'created' } } } as const;

// A write shares the group commit: an async handler, on the transaction its `ctx` holds.
api.route({
  ...base,
  groupCommit: true,
  body: z.object({ n: z.number() }),
  handler: async ({ ctx, body }) => {
    await ctx.db.run('SELECT ?', [body.n]);
    return { status: 201, body: { n: body.n } };
  },
});
// One that writes the response itself resolves with nothing.
api.route({ ...base, groupCommit: true, handler: async ({ res }) => void res.status(201).end() });
// Outside the group commit a handler may answer at once, or await.
api.route({ ...base, handler: () => ({ status: 201 }) });
api.route({ ...base, handler: async () => ({ status: 201 }) });

// @ts-expect-error a groupCommit handler returns a promise of its reply, not the reply itself
api.route({ ...base, groupCommit: true, handler: () => ({ status: 201 }) });
// @ts-expect-error nor a promise of something that is not a reply
api.route({ ...base, groupCommit: true, handler: async () => 'created' });
// @ts-expect-error nor anything else
api.route({ ...base, groupCommit: true, handler: () => 201 });

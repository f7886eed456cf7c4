// Compiled by test/api/route-types.test.ts (not run): what a route declaration may and may not be.
import { z } from 'zod';
import { ApiRegistry } from '../../src/api/route.js';

const api = new ApiRegistry();
const base = { method: 'post', path: '/x', summary: 'x', auth: 'none', responses: { 201: { description: 'created' } } } as const;

// A synchronous write shares the group commit.
api.route({ ...base, groupCommit: true, body: z.object({ n: z.number() }), handler: ({ body }) => ({ status: 201, body: { n: body.n } }) });
// A handler that awaits is fine outside the group commit.
api.route({ ...base, handler: async () => ({ status: 201 }) });

// @ts-expect-error a handler that returns a promise cannot share the group commit's transaction
api.route({ ...base, groupCommit: true, handler: async () => ({ status: 201 }) });

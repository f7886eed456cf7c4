import { describe, expect, it } from 'vitest';
import { ApiRegistry, type ApiDeps } from '../../src/api/route.js';
import { routeModules } from '../../src/api/routes/index.js';
import { inlineReads } from '../../src/db/read-pool.js';
import { EventSignatures } from '../../src/delivery/event-signatures.js';
import { readQueries } from '../../src/services/offloaded-reads.js';
import { TokenService } from '../../src/services/tokens.js';
import { ADMIN_TOKEN, makeApi, makeContext } from '../support/context.js';

describe('the route modules (src/api/routes/index.ts)', () => {
  it('are one flat list of every route the app mounts, each module of one face: the organization or the operator', async () => {
    const ctx = await makeContext();
    const deps: ApiDeps = {
      ctx,
      tokens: new TokenService(ctx),
      adminToken: ADMIN_TOKEN,
      reads: inlineReads(ctx.db, readQueries),
      signatures: new EventSignatures(ctx),
    };
    const declared = routeModules.map((register) => {
      const registry = new ApiRegistry();
      register(registry, deps);
      return { name: register.name, routes: registry.routes };
    });
    const mounted = makeApi(ctx).registry.routes;
    expect(declared.flatMap((m) => m.routes.map((r) => `${r.method} ${r.path}`))).toEqual(mounted.map((r) => `${r.method} ${r.path}`));
    for (const { name, routes } of declared) {
      expect(routes.length, name).toBeGreaterThan(0);
      const faces = new Set(routes.map((r) => (r.path.startsWith('/admin/') ? 'operator' : 'organization')));
      expect([...faces], `${name} declares routes of one face`).toHaveLength(1);
      // The operator's face is the admin token's, and only it takes that token.
      for (const r of routes) expect(r.auth === 'admin', `${name}: ${r.method} ${r.path}`).toBe(r.path.startsWith('/admin/'));
    }
  });
});

import type { AppContext } from '../../src/context.js';

// Why: tests of key caching and of deferred decryption count how often a sealed secret is opened; one wrapper does the counting.

/** Wraps `ctx.secrets.open` (still doing the real work) and counts its calls from now on; read `count` at any moment. */
export function countUnseals(ctx: AppContext): { readonly count: number } {
  let count = 0;
  const open = ctx.secrets.open.bind(ctx.secrets);
  ctx.secrets.open = (...args: Parameters<typeof open>) => {
    count++;
    return open(...args);
  };
  return {
    get count() {
      return count;
    },
  };
}

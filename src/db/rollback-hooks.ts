/**
 * What a transaction (or a savepoint) calls if it rolls back: the undoing of work outside the
 * database that counted on its commit (a budget's tokens spent in memory). A savepoint that is
 * released hands its hooks to the scope around it, whose outcome they then wait on; a scope that
 * rolls back calls them, once each; a commit drops them.
 *
 * @module db/rollback-hooks
 */
export class RollbackHooks {
  #hooks: (() => void)[] = [];

  add(hook: () => void): void {
    this.#hooks.push(hook);
  }

  /** The scope was released into `outer`: its hooks now run if `outer` rolls back. */
  handTo(outer: RollbackHooks): void {
    outer.#hooks.push(...this.#hooks);
    this.#hooks = [];
  }

  /** The scope rolled back: each hook runs once. */
  run(): void {
    const hooks = this.#hooks;
    this.#hooks = [];
    for (const hook of hooks) {
      try {
        hook();
      } catch {
        // A hook gives back what the scope took in memory; its failure must not hide why the scope rolled back.
      }
    }
  }
}

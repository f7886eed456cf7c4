import { defineConfig } from 'vitest/config';

/**
 * `npm run test:unit`: the fast loop. Every suite that needs no child process, no socket and no
 * browser (pure rules, configuration, the SQLite layer on a temp file, the dispatcher's decisions
 * with an injected clock, the stores and jobs on SQLite), on SQLite alone. `npm test` runs them too,
 * with everything else. test/support/no-processes-or-sockets.ts fails a test here that starts a
 * process or opens a socket, so a suite that comes to need one is moved out rather than slowing
 * the loop. Suites that call openssl when it is installed (test/inbound/csr, keyring, pkcs12) stay
 * out: here their openssl checks would skip where `npm test` runs them.
 */
export default defineConfig({
  test: {
    name: 'unit',
    setupFiles: ['test/support/keep-native-objects.ts', 'test/support/no-processes-or-sockets.ts'],
    pool: 'forks',
    // As in vitest.config.ts: a shared or loaded machine slows the SQLite-heavy suites past vitest's 5 s default.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    minWorkers: 1,
    include: [
      'test/domain/**/*.test.ts',
      'test/config/**/*.test.ts',
      'test/logging/**/*.test.ts',
      'test/security/**/*.test.ts',
      'test/db/background-checkpoints.test.ts',
      'test/db/bookkeeping.test.ts',
      'test/db/directories.test.ts',
      'test/db/file-modes.test.ts',
      'test/db/group-commit.test.ts',
      'test/db/migrate.test.ts',
      'test/db/read-pool.test.ts',
      'test/db/sqlite-database.test.ts',
      'test/db/statement-cache.test.ts',
      'test/db/transaction-handle.test.ts',
      'test/db/dialect.test.ts',
      'test/store/dialect-rule.test.ts',
      'test/cluster/wakeups.test.ts',
      'test/delivery/dispatch/claim-shares.test.ts',
      'test/delivery/dispatch/send-slots.test.ts',
      'test/delivery/ordering-plans.test.ts',
      'test/delivery/query-plans.test.ts',
      'test/delivery/self-service-plans.test.ts',
      'test/api/console-types.test.ts',
      'test/api/route-modules.test.ts',
      'test/services/benchmark-sample.test.ts',
      'test/services/csv.test.ts',
      'test/services/outbox-budgets.test.ts',
      'test/services/outbox-list.test.ts',
      'test/services/refund-migration.test.ts',
      'test/services/refund-plans.test.ts',
      'test/services/transaction-import.test.ts',
      'test/inbound/inbound-retention.test.ts',
      'test/inbound/jwe-decrypt.test.ts',
      'test/inbound/sender-check.test.ts',
      'test/jobs/one-node.test.ts',
      'test/jobs/retention.test.ts',
      'test/receiver/abortable-sleep.test.ts',
      'test/receiver/forwarded-headers.test.ts',
      'test/verify/test-events.test.ts',
      'test/bench/cpu-profile-summary.test.ts',
      'test/bench/ledger.test.ts',
      'test/cli/database-words.test.ts',
      'test/cli/import-file.test.ts',
      'test/cli/import-progress.test.ts',
      'test/cli/listen-failure.test.ts',
      'test/examples/compose.test.ts',
    ],
  },
});

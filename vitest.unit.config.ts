import { defineConfig } from 'vitest/config';

/**
 * `npm run test:unit`: the fast loop. The suites that need no child process, no socket and no browser
 * (pure rules, configuration, the SQLite layer on a temp file, the dispatcher's decisions with an
 * injected clock), on SQLite alone. `npm test` runs them too, with everything else.
 */
export default defineConfig({
  test: {
    name: 'unit',
    setupFiles: ['test/support/keep-native-objects.ts'],
    pool: 'forks',
    maxWorkers: 2,
    minWorkers: 1,
    include: [
      'test/domain/**/*.test.ts',
      'test/config/**/*.test.ts',
      'test/logging/**/*.test.ts',
      'test/security/**/*.test.ts',
      'test/db/bookkeeping.test.ts',
      'test/db/directories.test.ts',
      'test/db/file-modes.test.ts',
      'test/db/group-commit.test.ts',
      'test/db/migrate.test.ts',
      'test/db/sqlite-database.test.ts',
      'test/db/statement-cache.test.ts',
      'test/delivery/dispatch/claim-shares.test.ts',
      'test/delivery/dispatch/send-slots.test.ts',
      'test/delivery/batch-record.test.ts',
      'test/delivery/self-service-plans.test.ts',
      'test/api/console-types.test.ts',
      'test/api/route-modules.test.ts',
      'test/services/csv.test.ts',
      'test/services/outbox-list.test.ts',
      'test/services/refund-plans.test.ts',
      'test/inbound/sender-check.test.ts',
      'test/receiver/abortable-sleep.test.ts',
      'test/receiver/forwarded-headers.test.ts',
      'test/bench/cpu-profile-summary.test.ts',
      'test/cli/import-progress.test.ts',
    ],
  },
});

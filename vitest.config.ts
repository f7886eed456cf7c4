import { defineConfig } from 'vitest/config';

/**
 * Two projects, one suite: every test on SQLite, and the suites whose code differs by backend (the
 * store through services, the API, delivery, inbound, jobs, and the real-process crash and restart
 * tests) again on PostgreSQL: a real server, embedded or named by BORDERD_TEST_DATABASE_URL
 * (test/support/postgres-setup.ts). A test that checks SQLite alone skips itself there (`onPostgres`).
 */
const POSTGRES_SUITES = [
  'test/services/**/*.test.ts',
  'test/api/**/*.test.ts',
  'test/delivery/**/*.test.ts',
  'test/inbound/**/*.test.ts',
  'test/jobs/**/*.test.ts',
  'test/postgres/**/*.test.ts',
];

/** Suites `npm test` leaves out because a tool they need is missing (scripts/test.mjs says which and why). */
const UNAVAILABLE = (process.env.BORDERD_TEST_UNAVAILABLE ?? '').split(',').filter(Boolean);

export default defineConfig({
  test: {
    // Node 24 with better-sqlite3 12: keep tests' native SQLite objects from the collector (see the file).
    setupFiles: ['test/support/keep-native-objects.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real borderd processes; two at a time suits a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: ['test/postgres/**', ...UNAVAILABLE] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: POSTGRES_SUITES,
          exclude: UNAVAILABLE,
          env: { BORDERD_TEST_BACKEND: 'postgres' },
          globalSetup: ['test/support/postgres-setup.ts'],
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Node 24 with better-sqlite3 12: keep tests' native SQLite objects from the collector (see the file).
    setupFiles: ['test/support/keep-native-objects.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real borderd processes; two at a time suits a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1,
  },
});

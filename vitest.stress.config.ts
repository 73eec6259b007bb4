import { defineConfig } from 'vitest/config';

// The full matrix with the counts of RELIABILITY.md; each can be overridden from the
// environment (CHAOS_ITEMS=1000 npm run test:stress).
const counts = {
  CHAOS_ITEMS: '300',
  CHAOS_KILLS: '200',
  CHAOS_MAX_INTERVAL_MS: '4000',
  LOAD_ITEMS: '500',
  PRODUCERS: '4',
  PRODUCER_ADDS: '1000',
  HUGE_LINE_MB: '50',
  WORKERS_CHAOS_ITEMS: '300',
  WORKERS_CHAOS_KILLS: '100',
  WORKERS_CHAOS_MAX_INTERVAL_MS: '2000',
  FLEET_ITEMS: '300',
  FLEET_KILLS: '60',
  FLEET_OUTAGE_MS: '20000',
  FLEET_ADDS: '30',
};

export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    env: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, process.env[k] ?? v])),
    testTimeout: 3_600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: [
      'test/support/build.ts',
      'test/reliability/figures.ts',
      'test/support/leak-check.ts',
    ],
    setupFiles: ['test/support/cleanup.ts'],
  },
});

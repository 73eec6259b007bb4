import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The stress suite runs on its own: npm run test:stress.
    exclude: ['test/stress/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/reliability/figures.ts'],
  },
});

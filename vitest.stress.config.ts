import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/stress/**/*.test.ts', 'test/reliability/**/*.test.ts'],
    testTimeout: 600_000,
    pool: 'forks',
    globalSetup: ['test/reliability/figures.ts'],
  },
});

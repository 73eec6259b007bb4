import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/reliability runs here at small counts; npm run test:stress runs it at full size.
    exclude: ['node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at once even on two cores: most tests wait on the processes they start, and
    // the suite stays within CI's 20 minutes on a slow machine.
    maxWorkers: 2,
    globalSetup: [
      'test/support/build.ts',
      'test/support/coverage.ts',
      'test/reliability/figures.ts',
      'test/support/leak-check.ts',
    ],
    setupFiles: ['test/support/cleanup.ts', 'test/support/coverage-env.ts'],
  },
});

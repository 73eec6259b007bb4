import { createRequire } from 'node:module';

/** The package version, read from package.json next to dist/. */
export const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string })
  .version;

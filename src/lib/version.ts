import fs from 'node:fs';

/** The package version, read from package.json next to dist/ (node:fs is loaded already). */
export const VERSION = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

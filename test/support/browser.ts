import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Where the dashboard tests leave their screenshots, to be looked at. */
export const ARTIFACTS = path.resolve('test-artifacts', 'dashboard');

/** Debian's chromium (installed by .ci/run), or the one RALPH_CHROMIUM names. */
export function chromiumPath(): string {
  if (process.env.RALPH_CHROMIUM) return process.env.RALPH_CHROMIUM;
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('no chromium on PATH: apt-get install chromium (or set RALPH_CHROMIUM)');
  }
}

/** A headless Chromium for a test file (closed by its afterAll). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
}

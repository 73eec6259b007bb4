// Coverage across the processes the tests start: each test worker sets NODE_V8_COVERAGE for
// what it starts (coverage-env.ts), so every run of the built CLI (most tests run ralph as its
// users do) writes V8's coverage to one directory, and its summary, mapped back to src/ through
// the build's source maps, is printed at the end. ralph passes no NODE_V8_COVERAGE to its
// agents: theirs are not ralph's lines.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPORTS = path.join(ROOT, 'coverage');
/** Where the processes the tests start write their coverage. */
export const RAW_COVERAGE = path.join(REPORTS, 'raw');
const RAW = RAW_COVERAGE;

export default function setup(): () => void {
  fs.rmSync(RAW, { recursive: true, force: true });
  fs.mkdirSync(RAW, { recursive: true });
  return () => {
    const c8 = path.join(ROOT, 'node_modules', 'c8', 'bin', 'c8.js');
    const summary = execFileSync(
      process.execPath,
      [
        c8,
        'report',
        '--all',
        '--temp-directory',
        RAW,
        '--reports-dir',
        REPORTS,
        '--reporter',
        'text-summary',
        '--reporter',
        'json-summary',
        '--src',
        'src',
        '--include',
        'src/**',
        '--exclude-after-remap',
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    process.stdout.write(`\ncoverage of src/ across the built CLI's runs (coverage/)${summary}`);
    fs.rmSync(RAW, { recursive: true, force: true });
  };
}

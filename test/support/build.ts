// Many tests start the built CLI (dist/bin.js): after an edit of the sources, `npx vitest run
// <file>` would test the last build. The build is made again first when any source is newer
// than it (`npm test` builds before, so it finds it current), and a build that fails stops
// the run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCES = [
  'src',
  'dashboard/src',
  'dashboard/index.html',
  'dashboard/app.css',
  'package.json',
];
/** Written by every build: tsc emits every file anew, then the dashboard's script and the bundles. */
const BUILT = [
  'dist/bin.js',
  'dist/dashboard/app.js',
  'dist/quick/quick-commands.js',
  'dist/main/main.js',
];

function newest(entry: string): number {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(
    stat.mtimeMs,
    ...fs.readdirSync(entry).map((name) => newest(path.join(entry, name))),
  );
}

/** Whether the build is missing or older than a source. */
export function buildIsStale(root = ROOT): boolean {
  const built = BUILT.map((file) => fs.statSync(path.join(root, file), { throwIfNoEntry: false }));
  if (built.some((stat) => stat === undefined)) return true;
  const builtAt = Math.min(...built.map((stat) => stat!.mtimeMs));
  return SOURCES.some((source) => newest(path.join(root, source)) > builtAt);
}

export default function setup(): void {
  if (!buildIsStale()) return;
  process.stderr.write('the build is older than the sources: npm run build\n');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

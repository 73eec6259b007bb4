// The global setup that makes the build again when a source is newer than it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIsStale } from '../support/build.js';
import { tempDir } from '../support/workspace.js';

async function tree(files: Record<string, number>): Promise<string> {
  const root = await tempDir('ralph-build-');
  for (const [file, seconds] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), '');
    fs.utimesSync(path.join(root, file), seconds, seconds);
  }
  for (const dir of ['src', 'src/runner', 'dist', 'dist/dashboard', 'dist/quick', 'dist/main'])
    if (fs.existsSync(path.join(root, dir))) fs.utimesSync(path.join(root, dir), 1, 1);
  return root;
}

describe('the build check of the test setup', () => {
  it('finds a build newer than every source current', async () => {
    const root = await tree({
      'src/runner/loop.ts': 100,
      'dist/bin.js': 200,
      'dist/dashboard/app.js': 201,
      'dist/quick/quick-commands.js': 202,
      'dist/main/main.js': 203,
    });
    expect(buildIsStale(root)).toBe(false);
  });

  it('finds a build older than one source, or missing a part, stale', async () => {
    const edited = await tree({
      'src/runner/loop.ts': 300,
      'dist/bin.js': 200,
      'dist/dashboard/app.js': 201,
      'dist/quick/quick-commands.js': 202,
      'dist/main/main.js': 203,
    });
    expect(buildIsStale(edited)).toBe(true);
    const half = await tree({ 'src/runner/loop.ts': 100, 'dist/bin.js': 200 });
    expect(buildIsStale(half)).toBe(true);
  });
});

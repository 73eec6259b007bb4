import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_FILES } from './script.js';

/** Who made the demo project's first commit (its own identity: no git configuration needed). */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'ralph demo',
  GIT_AUTHOR_EMAIL: 'demo@ralph.invalid',
  GIT_COMMITTER_NAME: 'ralph demo',
  GIT_COMMITTER_EMAIL: 'demo@ralph.invalid',
};

/**
 * Makes the demo's project in `dir`, a new directory: a git repository on `main` holding a
 * tiny library whose test fails, in one commit.
 */
export function makeDemoProject(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [file, text] of Object.entries(PROJECT_FILES)) {
    fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...IDENTITY },
    });
  git('init', '--quiet', '--initial-branch', 'main');
  git('add', '--all');
  git('commit', '--quiet', '-m', 'tally: add(), and its test (which fails)');
}

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './workspace.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.test',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.test',
};

/** Runs git in `cwd` and returns its output, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, ...IDENTITY },
    encoding: 'utf8',
  }).trim();
}

/** A repository made by the test: `main` with one commit (a README). */
export async function makeRepo(): Promise<string> {
  const repo = await tempDir('ralph-repo-');
  git(repo, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# A project\n');
  git(repo, 'add', 'README.md');
  git(repo, 'commit', '-q', '-m', 'initial');
  return repo;
}

/** A repository (`makeRepo`) with a bare clone of it as its remote `origin`. */
export async function makeRepoWithRemote(): Promise<{ repo: string; bare: string }> {
  const repo = await makeRepo();
  const bare = path.join(await tempDir('ralph-remote-'), 'remote.git');
  git(repo, 'clone', '-q', '--bare', repo, bare);
  git(repo, 'remote', 'add', 'origin', bare);
  return { repo, bare };
}

/** The files a commit-ish has, sorted. */
export function filesAt(repo: string, ref: string): string[] {
  return git(repo, 'ls-tree', '--name-only', '-r', ref).split('\n').filter(Boolean).sort();
}

/** The branches of a repository, without the `*` of the current one. */
export function branches(repo: string): string[] {
  return git(repo, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean).sort();
}

import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { git } from '../git/git.js';
import type { DependencyTree } from './config-schema.js';

// Which dependency tree a worktree holds, and which its lockfiles want: read before a session
// (has a lockfile changed?) and written when a tree is given.

/** Where a worktree's git dir records the tree each of its dependency paths holds. */
const RECORD = 'ralph-dependencies.json';

/**
 * The tree's key: its lockfiles' contents (an absent one counts), its install commands and
 * paths, and the Node.js and platform a native module was built for.
 */
export async function treeKey(tree: DependencyTree, workDir: string): Promise<string> {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([tree.install, tree.paths, process.version, process.platform]));
  hash.update(process.arch);
  for (const lockfile of tree.lockfiles) {
    const content = await fsp.readFile(path.join(workDir, lockfile)).catch(() => undefined);
    hash.update(`\0${lockfile}\0${content === undefined ? 'absent' : content.length}\0`);
    if (content !== undefined) hash.update(content);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Which of the trees the worktree does not hold as its lockfiles now decide (none: it is
 * ready); a tree whose paths are gone (an install that failed removed them) is not held either.
 */
export async function staleTrees(
  trees: readonly DependencyTree[],
  worktree: string,
  workDir: string,
): Promise<DependencyTree[]> {
  const record = await readRecord(worktree);
  const stale: DependencyTree[] = [];
  for (const tree of trees)
    if (
      record[recordName(tree)] !== (await treeKey(tree, workDir)) ||
      !(await allPresent(tree.paths, workDir))
    )
      stale.push(tree);
  return stale;
}

export const recordName = (tree: DependencyTree) => tree.paths.join('\0');

async function recordFile(worktree: string): Promise<string> {
  const gitDir = await git(worktree, ['rev-parse', '--path-format=absolute', '--git-dir']);
  return path.join(gitDir.trim(), RECORD);
}

export async function readRecord(worktree: string): Promise<Record<string, string>> {
  const text = await fsp.readFile(await recordFile(worktree), 'utf8').catch(() => '{}');
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null
      ? Object.fromEntries(
          Object.entries(parsed).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string',
          ),
        )
      : {};
  } catch {
    // A record that cannot be read holds nothing: the trees are given again.
    return {};
  }
}

export async function writeRecord(worktree: string, record: Record<string, string>): Promise<void> {
  await fsp.writeFile(await recordFile(worktree), `${JSON.stringify(record)}\n`);
}

async function allPresent(paths: readonly string[], workDir: string): Promise<boolean> {
  for (const p of paths)
    if (
      !(await fsp.stat(path.join(workDir, p)).then(
        () => true,
        () => false,
      ))
    )
      return false;
  return true;
}

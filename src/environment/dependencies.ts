import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { git } from '../git/git.js';
import { readRecord, recordName, treeKey, writeRecord } from './tree-keys.js';
import { runCommand } from '../lib/command.js';
import { pathExists } from '../lib/fs.js';
import type { DependencyTree } from './config-schema.js';

/*
 * Shared dependency trees. A tree (say `node_modules`) is built once for each content of the
 * lockfiles that decide it, by its install commands in the first worktree that needs it, and
 * kept in the store; every other worktree with the same lockfiles gets a copy of its own (a
 * spare copied ahead of time, moved in by a rename; or copied then). A copy, not links: an
 * agent's write into its `node_modules` reaches neither the store nor another worktree, and
 * the code resolves inside its own worktree. The figures behind the choice are in the README.
 */

/** Spare copies of a tree kept ready, so that the next worktree's is a rename. */
const SPARES = 1;
/** Trees kept in the store: the most recently used ones (a lockfile changed, a branch back). */
const TREES_KEPT = 3;
/** What marks a tree in the store as whole (a build cut short leaves none). */
const WHOLE = 'whole';

/** Where a workspace keeps its trees: beside the worktrees, so a spare moves in by a rename. */
export const dependencyStore = (worktrees: string): string => path.join(worktrees, '.dependencies');

/** How a worktree got its tree: already held, a spare moved in, copied, or built by it. */
export type TreeGiven = 'held' | 'spare' | 'copied' | 'built';

export interface GivenTree {
  key: string;
  paths: string[];
  given: TreeGiven;
}

/** One tree to give a worktree: where, from which store, and how to install it if none is built. */
export interface TreeRequest {
  store: string;
  tree: DependencyTree;
  worktree: string;
  workDir: string;
  /** Runs the tree's install commands in the work dir: their failure, if they failed. */
  install: () => Promise<{ failure?: string; stopped: boolean }>;
}

export type TreeOutcome =
  { kind: 'given'; tree: GivenTree } | { kind: 'failed'; failure: string } | { kind: 'stopped' };

/** Builds under way in this process, by key: one build a tree, however many worktrees wait. */
const building = new Map<string, Promise<unknown>>();
/** Spares being copied, by key. */
const refilling = new Map<string, Promise<void>>();

/** Gives the worktree the tree its lockfiles decide, building it first when none is. */
export async function giveTree(request: TreeRequest): Promise<TreeOutcome> {
  const { tree, worktree, workDir } = request;
  const key = await treeKey(tree, workDir);
  const record = await readRecord(worktree);
  const name = recordName(tree);
  const held = async (given: TreeGiven): Promise<TreeOutcome> => {
    await writeRecord(worktree, { ...record, [name]: key });
    return { kind: 'given', tree: { key, paths: tree.paths, given } };
  };
  if (record[name] === key && (await allThere(tree.paths, workDir))) return held('held');
  const tracked = await trackedPaths(tree.paths, workDir);
  if (tracked.length > 0)
    return {
      kind: 'failed',
      failure: `dependency path ${tracked.join(', ')} is tracked by the repository: a tree ralph shares between worktrees must be one git ignores`,
    };
  await ignoreInRepository(tree.paths, worktree, workDir);
  const dir = path.join(request.store, key);
  for (;;) {
    if (await pathExists(path.join(dir, WHOLE))) {
      const given = await giveCopy(dir, tree.paths, workDir);
      await touch(dir);
      return held(given);
    }
    const under = building.get(key);
    if (under === undefined) break;
    await under.catch(() => undefined);
  }
  const build = buildTree(request, key, dir);
  building.set(key, build);
  try {
    const outcome = await build;
    if (outcome.kind !== 'given') {
      // The build removed what the worktree held: it holds no tree now, whatever it held before.
      const { [name]: _dropped, ...rest } = record;
      await writeRecord(worktree, rest);
      return outcome;
    }
    return held('built');
  } finally {
    building.delete(key);
  }
}

/** Copies spares of the tree of `key` until there are enough, off any worktree's way. */
export function refillSpares(store: string, key: string, paths: readonly string[]): Promise<void> {
  const under = refilling.get(key);
  if (under !== undefined) return under;
  const refill = (async () => {
    const dir = path.join(store, key);
    if (!(await pathExists(path.join(dir, WHOLE)))) return;
    while ((await spares(dir)).length < SPARES) {
      const making = path.join(dir, `.making-${randomUUID()}`);
      await copyPaths(path.join(dir, 'tree'), making, paths);
      await fsp.rename(making, path.join(dir, `spare-${randomUUID()}`));
    }
  })().finally(() => refilling.delete(key));
  refilling.set(key, refill);
  return refill;
}

async function buildTree(request: TreeRequest, key: string, dir: string): Promise<TreeOutcome> {
  const { tree, workDir, store } = request;
  for (const p of tree.paths) await fsp.rm(path.join(workDir, p), { recursive: true, force: true });
  const installed = await request.install();
  if (installed.stopped) return { kind: 'stopped' };
  if (installed.failure !== undefined) return { kind: 'failed', failure: installed.failure };
  const missing = await missingPaths(tree.paths, workDir);
  if (missing.length > 0)
    return {
      kind: 'failed',
      failure: `the install commands made no ${missing.join(', ')} in ${workDir}`,
    };
  const making = path.join(store, `.making-${randomUUID()}`);
  await copyPaths(workDir, path.join(making, 'tree'), tree.paths);
  await fsp.writeFile(path.join(making, WHOLE), `${new Date().toISOString()}\n`);
  // Another process of the fleet may have built it meanwhile: its tree stands, this one goes.
  await fsp.rename(making, dir).catch(() => fsp.rm(making, { recursive: true, force: true }));
  await touch(dir);
  await pruneTrees(store);
  return { kind: 'given', tree: { key, paths: tree.paths, given: 'built' } };
}

/** A spare moved in when there is one (claimed by renaming it), else a copy of the tree. */
async function giveCopy(
  dir: string,
  paths: readonly string[],
  workDir: string,
): Promise<TreeGiven> {
  for (const p of paths) await fsp.rm(path.join(workDir, p), { recursive: true, force: true });
  for (const spare of await spares(dir)) {
    const taken = path.join(dir, `.taken-${randomUUID()}`);
    const claimed = await fsp.rename(path.join(dir, spare), taken).then(
      () => true,
      () => false,
    );
    if (!claimed) continue;
    try {
      for (const p of paths) await moveInto(path.join(taken, p), path.join(workDir, p));
      return 'spare';
    } finally {
      await fsp.rm(taken, { recursive: true, force: true });
    }
  }
  await copyPaths(path.join(dir, 'tree'), workDir, paths);
  return 'copied';
}

async function moveInto(from: string, to: string): Promise<void> {
  await fsp.mkdir(path.dirname(to), { recursive: true });
  try {
    await fsp.rename(from, to);
  } catch (error) {
    // The worktrees on another file system than the store (a landing worktree under state/).
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyTree(from, to);
  }
}

async function copyPaths(from: string, to: string, paths: readonly string[]): Promise<void> {
  for (const p of paths) {
    await fsp.mkdir(path.dirname(path.join(to, p)), { recursive: true });
    await copyTree(path.join(from, p), path.join(to, p));
  }
}

/**
 * A copy of a directory, links kept as they are (relative ones resolve inside the copy). GNU cp
 * clones the files where the file system can (btrfs, XFS) and copies them where it cannot.
 */
async function copyTree(from: string, to: string): Promise<void> {
  if (process.platform !== 'linux') {
    await fsp.cp(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    return;
  }
  const copied = await runCommand({
    argv: ['cp', '-a', '--reflink=auto', '--', from, to],
    cwd: path.dirname(to),
    timeoutMs: 30 * 60_000,
    killGraceMs: 5_000,
    maxOutputBytes: 64 * 1024,
  });
  if (copied.code !== 0)
    throw new Error(`copying ${from} to ${to} failed: ${copied.startError ?? copied.tail.trim()}`);
}

async function spares(dir: string): Promise<string[]> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith('spare-'));
}

/** Removes the least recently used trees past the ones kept, and what builds cut short left. */
async function pruneTrees(store: string): Promise<void> {
  const names = await fsp.readdir(store).catch(() => [] as string[]);
  const trees: { name: string; used: number }[] = [];
  for (const name of names) {
    if (name.startsWith('.making-') || building.has(name) || refilling.has(name)) continue;
    const used = await fsp.stat(path.join(store, name, WHOLE)).then(
      (stat) => stat.mtimeMs,
      () => 0,
    );
    trees.push({ name, used });
  }
  trees.sort((a, b) => b.used - a.used);
  for (const { name } of trees.slice(TREES_KEPT))
    await fsp.rm(path.join(store, name), { recursive: true, force: true });
}

async function touch(dir: string): Promise<void> {
  const now = new Date();
  await fsp.utimes(path.join(dir, WHOLE), now, now).catch(() => undefined);
}

async function allThere(paths: readonly string[], workDir: string): Promise<boolean> {
  return (await missingPaths(paths, workDir)).length === 0;
}

async function missingPaths(paths: readonly string[], workDir: string): Promise<string[]> {
  const missing: string[] = [];
  for (const p of paths) if (!(await pathExists(path.join(workDir, p)))) missing.push(p);
  return missing;
}

async function trackedPaths(paths: readonly string[], workDir: string): Promise<string[]> {
  const out = await git(workDir, ['ls-files', '-z', '--', ...paths]);
  const files = out.split('\0').filter((file) => file !== '');
  return paths.filter((p) =>
    files.some((file) => file === p || file.startsWith(`${p.replace(/\/$/, '')}/`)),
  );
}

/**
 * Has the repository ignore the tree's paths (its `info/exclude`, which every worktree of it
 * reads), so that neither ralph's commits nor an agent's ever hold a tree, whatever the
 * project's own `.gitignore` says.
 */
async function ignoreInRepository(
  paths: readonly string[],
  worktree: string,
  workDir: string,
): Promise<void> {
  const common = (
    await git(worktree, ['rev-parse', '--path-format=absolute', '--git-common-dir'])
  ).trim();
  const exclude = path.join(common, 'info', 'exclude');
  const text = await fsp.readFile(exclude, 'utf8').catch(() => '');
  const lines = new Set(text.split('\n'));
  const rules = paths
    .map((p) => `/${path.relative(worktree, path.join(workDir, p)).split(path.sep).join('/')}`)
    .filter((rule) => !lines.has(rule));
  if (rules.length === 0) return;
  await fsp.mkdir(path.dirname(exclude), { recursive: true });
  const head = text === '' || text.endsWith('\n') ? '' : '\n';
  await fsp.appendFile(
    exclude,
    `${head}# ralph: dependency trees it gives each worktree\n${rules.join('\n')}\n`,
  );
}

import path from 'node:path';
import type { LandSettings } from './settings.js';
import { gitSucceeds } from '../git/git.js';
import { runGates, type GateResult, type GatesRequest, type GatesRun } from '../gates/gates.js';
import type { Item } from '../queue/item.js';
import type { LandRefusal } from '../queue/transitions.js';
import {
  branchCommit,
  containedIn,
  commitsSinceBase,
  firstParent,
  landedCommit,
  landingWorktree,
  mergeBranch,
  moveTarget,
  pushTarget,
  syncTarget,
  targetCommit,
  worktreeClean,
} from './git-land.js';

/** One item's landing: what to merge, where, and how its land gates run. */
export interface LandJob {
  item: Item;
  /** The repository of the item's work dir. */
  repo: string;
  /** The item's work dir inside the repository: where its land gates run. */
  workDirInRepo: string;
  land: LandSettings;
  /** Whether its pull request's checks are awaited once it landed (the workspace's forge). */
  forge: boolean;
  /** The worktree ralph keeps for landing onto this target. */
  worktree: string;
  /**
   * The commit the worktree was left at, clean, by the last landing through it (nothing has
   * run in it since): a landing onto that commit needs no checkout.
   */
  worktreeAt?: string;
  /**
   * Where the lander last saw the target (it moved it there): trusted instead of read, as the
   * compare-and-swap that moves it finds out if it moved meanwhile.
   */
  targetAt?: string;
  /**
   * Set in a train (see the runner's lander): the landing is made and gated, and the target
   * left for the lander to move past the whole train at once (asking then which of its items
   * are still in line). `at` is where the target is when `targetAt` is the train's last
   * landing, made in the worktree only (none before the first).
   */
  train?: { at?: string };
  /**
   * Makes the worktree ready for the land gates as an item's worktree is for its gates (its
   * setup when new, its maintenance after); throws why it could not, which is no fault of the
   * item's.
   */
  environment?: () => Promise<void>;
  /** The committer's identity for a repository without one (`identityEnv`). */
  identity: Readonly<Record<string, string>>;
  /**
   * Whether the item is still in line to land, asked just before the target moves: false when
   * a person took it out (cancelled it) while it was merged and gated.
   */
  inLine: () => Promise<boolean>;
  gates: {
    env: Readonly<Record<string, string>>;
    /** Every land gate's command and output. */
    logFile: string;
    killGraceMs: number;
    maxOutputBytes: number;
    signal?: AbortSignal;
    onStart?: (name: string) => void;
    onEnd?: (result: GateResult) => void;
    /** Puts a land gate in the item's sandbox. */
    enter?: GatesRequest['enter'];
  };
}

/** How a landing went. */
export type Landing =
  /**
   * The target holds the item's work at `commit`, landed onto `onto` (`already`: a landing a
   * crash cut short, found on the target).
   */
  | {
      kind: 'landed';
      commit: string;
      onto: string;
      already: boolean;
      gates: GateResult[];
      /**
       * Whether the worktree holds the landed commit and nothing else (its gates left it so):
       * asked of git while the lander goes on, and awaited before the next landing.
       */
      clean: Promise<boolean>;
    }
  /** The target is as it was; the item goes back to its agent (or fails after its rounds). */
  | { kind: 'refused'; refusal: LandRefusal; gates: GateResult[] }
  /**
   * The target moved meanwhile (another lander here, or the remote a push went to): land again
   * on top of it.
   */
  | { kind: 'moved'; where: 'here' | 'remote' }
  /** The runner is stopping: the item waits to land. */
  | { kind: 'stopped' }
  /** The item was taken out of line while it landed: the target is as it was. */
  | { kind: 'withdrawn' };

/** A landing that made no merge in the worktree: whatever it holds is not reused. */
const NOT_CLEAN = Promise.resolve(false);

/** Lines of the target's history a conflict's message names. */
const COMMITS_SHOWN = 30;

/**
 * Lands one item: its branch merged onto the target in the kept worktree by the method, the
 * land gates run on the merged tree, and only then the target moved, by a compare-and-swap
 * from the commit the merge was made on. A crash at any point leaves the target before or
 * after the merge; a landing found on the target already (its session's trailer) is done.
 */
export async function landItem(job: LandJob): Promise<Landing> {
  const { item, repo, land } = job;
  const session = item.sessions.at(-1);
  const { branch, baseCommit } = item;
  if (session === undefined || branch === undefined || baseCommit === undefined)
    throw new Error(`item ${item.id} has no branch and session to land`);
  // What lands is the commit ralph recorded (gated, and reviewed when review is on), never the
  // branch as another's hand may have left it: a branch moved since is not landed at all.
  const work = item.head ?? branch;
  if (item.head !== undefined) {
    // A branch that is gone cannot be landed (tried again later); one moved is a person's to see.
    const tip = await branchCommit(repo, branch);
    if (tip === undefined) throw new Error(`its branch ${branch} is not in ${repo}`);
    if (tip !== item.head)
      return { kind: 'refused', refusal: branchMoved(branch, item.head, tip), gates: [] };
  }
  const synced =
    land.push === undefined
      ? { onto: job.targetAt ?? (await targetCommit(repo, land.target)), remote: undefined }
      : await syncTarget(repo, land.push, land.target);
  const { onto } = synced;
  // The target as it is, pushed when the remote lacks it: a landing found made, or not needed.
  const asItIs = async (landing: Landing & { kind: 'landed' }): Promise<Landing> =>
    land.push === undefined ||
    synced.remote === onto ||
    (await pushTarget(repo, land.push, land.target, onto)) === 'pushed'
      ? landing
      : { kind: 'moved', where: 'remote' };
  // A branch the target has already: landed before (a landing a crash cut short, found by its
  // session's trailer), or with nothing the target lacks (it lands as it is, no commit).
  const asFound = async (): Promise<Landing> => {
    // A target trusted, not read, is read before a landing is recorded without moving it.
    if (
      job.targetAt !== undefined &&
      (await targetCommit(repo, land.target)) !== (job.train?.at ?? onto)
    )
      return { kind: 'moved', where: 'here' };
    const already = await landedCommit(repo, land.target, baseCommit, session);
    return asItIs(
      already === undefined
        ? { kind: 'landed', commit: onto, onto, already: false, gates: [], clean: NOT_CLEAN }
        : {
            kind: 'landed',
            commit: already,
            onto: await firstParent(repo, already),
            already: true,
            gates: [],
            clean: NOT_CLEAN,
          },
    );
  };
  // A merge says itself when the target has the branch already; a squash or a rebase would
  // make an empty commit of it, so they ask first.
  if (
    land.method !== 'merge' &&
    ((await containedIn(repo, work, onto)) ||
      (await landedCommit(repo, land.target, baseCommit, session)) !== undefined)
  )
    return asFound();
  if (job.worktreeAt !== onto) await landingWorktree(repo, job.worktree, onto);
  const merged = await mergeBranch(job.worktree, {
    method: land.method,
    branch: work,
    onto,
    message: `ralph: land ${item.title} (${item.id})`,
    session,
    identity: job.identity,
  });
  if (merged.kind === 'conflict')
    return { kind: 'refused', refusal: await conflict(job, onto, merged.files), gates: [] };
  if (merged.commit === onto) return asFound();
  const gated = await gateMerged(job, onto, merged.commit);
  if ('refusal' in gated) return { kind: 'refused', refusal: gated.refusal, gates: [] };
  if (gated.stopped) return { kind: 'stopped' };
  if (gated.failure !== undefined)
    return {
      kind: 'refused',
      gates: gated.results,
      refusal: {
        outcome: 'land_gate_failed',
        error: `landing on ${land.target}: ${gated.verdict ?? 'a land gate failed'}`,
        failure: [
          `Your branch \`${branch}\` merged onto \`${land.target}\` (at ${onto.slice(0, 12)}) without conflicts, but a land gate failed on the merged tree: ${land.target} was left as it was.`,
          gated.failure,
          `Merge \`${land.target}\` into your branch (\`git merge ${land.target}\`), make the gate pass there, and commit.`,
        ].join('\n\n'),
      },
    };
  // Whether the gates left the worktree as the merge made it (the next landing may reuse it
  // then), asked while the target moves and the lander goes on: a landing's git calls count.
  const clean = gated.results.length === 0 ? Promise.resolve(true) : worktreeClean(job.worktree);
  const made: Landing = {
    kind: 'landed',
    commit: merged.commit,
    onto,
    already: false,
    gates: gated.results,
    clean,
  };
  if (job.train !== undefined) return made;
  if (!(await job.inLine())) return { kind: 'withdrawn' };
  // Pushed before the local target moves: a crash between the two is found landed (the
  // remote's target, fetched, holds the session's commit).
  if (
    land.push !== undefined &&
    (await pushTarget(repo, land.push, land.target, merged.commit)) === 'rejected'
  )
    return { kind: 'moved', where: 'remote' };
  const moved = await moveTarget(repo, land.target, merged.commit, onto, `ralph: land ${item.id}`);
  return moved ? made : { kind: 'moved', where: 'here' };
}

/**
 * The land gates on a merged tree; a kept worktree that could not be made ready for it is the
 * branch's own doing when the branch changed what decides its dependencies (a lockfile that
 * cannot install): refused, the installer's output for its agent.
 */
async function gateMerged(
  job: LandJob,
  onto: string,
  merged: string,
): Promise<GatesRun | { refusal: LandRefusal }> {
  try {
    return await runLandGates(job);
  } catch (error) {
    if (
      error instanceof EnvironmentFailed &&
      (await changedFiles(job.repo, onto, merged, error.lockfiles))
    )
      return { refusal: uninstallable(job, onto, error) };
    throw error;
  }
}

/**
 * The land gates on the tree the kept worktree holds (a merge, a revert), the worktree made ready
 * for them first, each in the item's sandbox.
 */
export async function runLandGates(
  job: Pick<LandJob, 'land' | 'environment' | 'gates' | 'worktree' | 'workDirInRepo'>,
): Promise<GatesRun> {
  if (job.land.gates.length > 0) await job.environment?.();
  return runGates(job.land.gates, {
    ...job.gates,
    cwd: path.join(job.worktree, job.workDirInRepo),
    onStart: (gate) => job.gates.onStart?.(gate.name),
  });
}

/**
 * A branch whose tip is not the commit ralph recorded: something other than its session moved
 * it (another agent's git in a shared repository, a person). It waits for a person.
 */
export function branchMoved(branch: string, recorded: string, tip: string): LandRefusal {
  const where = `was moved to ${tip.slice(0, 12)}`;
  return {
    outcome: 'branch_moved',
    error: `its branch ${branch} ${where} since ralph recorded ${recorded.slice(0, 12)} (the commit gated and reviewed): nothing was landed`,
    failure: `Your branch \`${branch}\` ${where} by something other than your session; ralph recorded ${recorded} as your work.`,
  };
}

/**
 * A kept target worktree that could not be made ready (its setup, its maintenance, its
 * dependencies' install): `lockfiles` (relative to the repository) decide its dependencies.
 */
export class EnvironmentFailed extends Error {
  constructor(
    message: string,
    readonly lockfiles: readonly string[],
  ) {
    super(message);
    this.name = 'EnvironmentFailed';
  }
}

/** Whether any of `files` differs between two commits. */
async function changedFiles(
  repo: string,
  from: string,
  to: string,
  files: readonly string[],
): Promise<boolean> {
  if (files.length === 0) return false;
  return !(await gitSucceeds(repo, ['diff', '--quiet', from, to, '--', ...files]));
}

/** A merged tree whose dependencies cannot install, as the agent is told it. */
function uninstallable(job: LandJob, onto: string, error: EnvironmentFailed): LandRefusal {
  const { item, land } = job;
  return {
    outcome: 'land_setup_failed',
    error: `landing on ${land.target}: the dependencies of the merged tree could not be installed`,
    failure: [
      `Your branch \`${item.branch ?? ''}\` merged onto \`${land.target}\` (at ${onto.slice(0, 12)}) changes ${error.lockfiles.join(', ')}, and installing the dependencies they decide failed on the merged tree: ${land.target} was left as it was.`,
      error.message,
      `Make the lockfile one that installs (regenerate it with the project's package manager), make the project's checks pass, and commit.`,
    ].join('\n\n'),
  };
}

/** A conflict, as the agent is told it: the files, the target's commits, what to do. */
async function conflict(job: LandJob, onto: string, files: string[]): Promise<LandRefusal> {
  const { item, land } = job;
  const commits = await commitsSinceBase(job.repo, item.baseCommit ?? onto, onto, COMMITS_SHOWN);
  return {
    outcome: 'land_conflict',
    error: `landing on ${land.target}: ${files.length} file${files.length === 1 ? '' : 's'} in conflict (${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''})`,
    failure: [
      `Your branch \`${item.branch ?? ''}\` could not land on \`${land.target}\`: merging it (${land.method}) conflicts in these files:`,
      files.map((file) => `- ${file}`).join('\n'),
      commits.length === 0
        ? `\`${land.target}\` is at ${onto.slice(0, 12)}.`
        : `The commits \`${land.target}\` has gained since your branch started (newest first):\n${commits.map((c) => `    ${c}`).join('\n')}`,
      `Merge \`${land.target}\` into your branch (\`git merge ${land.target}\`), resolve every conflict keeping both sides' intent, make the project's checks pass, and commit the merge. ralph lands the branch again after you finish.`,
    ].join('\n\n'),
  };
}

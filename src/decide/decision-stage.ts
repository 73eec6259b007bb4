import path from 'node:path';
import { pullRequestName } from '../queue/pull-request-name.js';
import { git, gitSucceeds } from '../git/git.js';
import { branchOf, identityEnv, repositoryRoot, retireWorktree } from '../git/worktree.js';
import { itemWorktree } from '../config/workspace.js';
import { ForgeError } from '../forge/forge.js';
import { forgeOfRepository } from '../forge/open.js';
import { readyTargetWorktree, targetJob } from '../land/job.js';
import { revertLanding } from '../land/revert.js';
import { exponentialBackoffMs } from '../lib/backoff.js';
import { rejectedRef, waitsOnPerson } from '../queue/decisions.js';
import type { DecisionEffect, Item } from '../queue/item.js';
import type { StageContext } from '../stage/context.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { decisionOrder } from '../queue/select.js';

// The decision stage: a person's accept or reject carried out on the world, one effect at a
// time, each recorded as it is made (the item keeps what is left), so that a runner killed
// between two effects goes on where it stood and never makes one twice.

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The wait before an effect git or the forge could not make is tried again; it doubles. */
const RETRY_BASE_MS = 30_000;
const RETRY_CAP_MS = 30 * 60_000;

/** Reverts in a row that found the target moved under them before one gives way. */
const MAX_MOVED = 5;

/** What carrying out one effect came to. */
type Carried = { kind: 'carried'; detail?: string } | { kind: 'refused'; failure: string };

export const decisions: StageFactory = (ctx) => new Decisions(ctx);

class Decisions implements StageDeclaration {
  readonly name = 'decisions';
  readonly on = true;
  readonly tends = { status: 'deciding', order: decisionOrder } as const;
  readonly width = 1;
  /** A person's decision is carried out while the night is paused too: it is theirs. */
  readonly pauses = false;
  readonly unmoved = 'stuck';
  readonly awaits = 'due';
  /** The revert worktrees whose setup ran this run: later reverts run their maintenance. */
  private readonly readied = new Set<string>();

  constructor(private readonly ctx: StageContext) {}

  /**
   * Why no new item may start: as many items wait on a person as `run.maxAwaitingReview`
   * allows (work in progress sized to what a person reviews). Counted from the queue alone.
   */
  async refusesClaims(): Promise<string | undefined> {
    const { ctx } = this;
    const limit = ctx.workspace.config.run.maxAwaitingReview;
    if (limit === undefined) return undefined;
    const now = ctx.clock.now();
    const items = await ctx.persistently('counting the items waiting on a person', () =>
      ctx.queue.list(),
    );
    const waiting = items.filter((item) => waitsOnPerson(item, now)).length;
    if (waiting < limit) return undefined;
    return `${waiting} item${waiting === 1 ? ' waits' : 's wait'} on a person (run.maxAwaitingReview ${limit}): no new item starts until some are accepted, rejected or deferred (ralph review)`;
  }

  /** Carries out the decision's next effect, and records what came of it. */
  async step(item: Item): Promise<Stepped> {
    const { ctx } = this;
    const effect = item.decision?.effects?.[0];
    if (effect === undefined) {
      // Left deciding with nothing to carry out (an item edited by hand): back where it was.
      const failure = 'its decision had nothing left to carry out';
      const applied = await ctx.persistently(`recording the decision on ${item.id}`, () =>
        ctx.queue.apply(item.id, { kind: 'decision_failed', failure, now: ctx.clock.now() }),
      );
      return { kind: 'moved', item: applied.kind === 'applied' ? applied.item : undefined };
    }
    let carried: Carried;
    try {
      carried = await this.effect(item, effect);
    } catch (error) {
      await this.tryLater(item, effect, error);
      return { kind: 'kept' };
    }
    const now = ctx.clock.now();
    const applied = await ctx.persistently(`recording the decision on ${item.id}`, () =>
      ctx.queue.apply(
        item.id,
        carried.kind === 'carried'
          ? { kind: 'decision_carried', effect, now }
          : { kind: 'decision_failed', failure: carried.failure, now },
      ),
    );
    if (carried.kind === 'carried')
      ctx.events.info('decision_carried', { item: item.id, effect, detail: carried.detail });
    else ctx.events.warn('decision_refused', { item: item.id, effect, error: carried.failure });
    return { kind: 'moved', item: applied.kind === 'applied' ? applied.item : undefined };
  }

  private async effect(item: Item, effect: DecisionEffect): Promise<Carried> {
    switch (effect) {
      case 'keep_branch':
        return this.keepBranch(item);
      case 'revert':
        return this.revert(item);
      case 'close_pull_request':
      case 'merge_pull_request':
        return this.pullRequest(item, effect);
    }
  }

  /**
   * The item's branch kept under its archive ref and given up (its worktree retired, what was
   * left uncommitted committed on it first), so that its next attempt starts afresh.
   */
  private async keepBranch(item: Item): Promise<Carried> {
    const { ctx } = this;
    const decision = item.decision;
    if (decision === undefined) return { kind: 'carried' };
    const repo = await this.repositoryOf(item);
    const branch = item.branch ?? branchOf(item.id);
    const worktree = itemWorktree(ctx.workspace.paths, item.id);
    await retireWorktree(repo, worktree, item.id, 'rejected');
    const ref = rejectedRef(item, decision);
    const tip = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])
      .then((out) => out.trim())
      .catch(() => '');
    if (tip !== '') {
      await git(repo, ['update-ref', '-m', `ralph: rejected ${item.id}`, ref, tip]);
      await git(repo, ['update-ref', '-d', `refs/heads/${branch}`, tip]);
    }
    // A branch gone already (a crash after the last step) is kept if its ref is there.
    const kept = tip !== '' || (await gitSucceeds(repo, ['rev-parse', '--verify', '--quiet', ref]));
    return { kind: 'carried', detail: kept ? `${branch} kept at ${ref}` : `${branch} was gone` };
  }

  /** The item's landing taken off its target by a revert commit, gated like a landing. */
  private async revert(item: Item): Promise<Carried> {
    const { ctx } = this;
    const decision = item.decision;
    if (decision === undefined) return { kind: 'carried' };
    const work = await ctx.sessions.workOf(item);
    const repo = await this.repositoryOf(item);
    const session = item.sessions.at(-1) ?? item.id;
    const logFile = path.join(ctx.workspace.paths.sessions, `${session}-revert.log`);
    const job = targetJob(ctx, {
      item,
      work,
      repo,
      identity: await identityEnv(repo),
      kind: 'revert',
      logFile,
      ready: async (worktree) => {
        const wanted = this.readied.has(worktree) ? 'maintenance' : 'setup';
        await readyTargetWorktree(ctx, { item, work, repo, worktree, wanted, logFile });
        this.readied.add(worktree);
      },
    });
    const target = item.landedOn ?? job.land.target;
    // One change of a target at a time: the lander (here, or another runner's) may hold it.
    const release = await ctx.persistently(`waiting to revert on ${target}`, () =>
      ctx.queue.lockAlone(target),
    );
    if (release === undefined) throw new Error(`another runner is changing ${target}`);
    try {
      for (let moved = 0; moved < MAX_MOVED; moved++) {
        const revert = await revertLanding({ ...job, decision });
        switch (revert.kind) {
          case 'reverted':
            return {
              kind: 'carried',
              detail: `reverted on ${target} at ${revert.commit.slice(0, 12)}${await this.sharedPullRequest(item, repo, target)}`,
            };
          case 'nothing':
            return { kind: 'carried', detail: `nothing of it was left on ${target}` };
          case 'refused':
            return { kind: 'refused', failure: ctx.redactor.redact(revert.failure) };
          case 'stopped':
            throw new Error('the run stopped while the revert was gated');
          case 'moved':
            continue;
        }
      }
      throw new Error(`${target} moved under ${MAX_MOVED} reverts in a row`);
    } finally {
      await release();
    }
  }

  /**
   * The target's own pull request (`kind: landed`), which holds what landed of every item, given
   * the revert: the target pushed to it, so that what it proposes no longer holds the rejected
   * work. Said in the effect's detail.
   */
  private async sharedPullRequest(item: Item, repo: string, target: string): Promise<string> {
    const forge = this.ctx.workspace.config.forge;
    const pull = item.pullRequest;
    if (forge === undefined || pull?.kind !== 'landed' || pull.head !== target) return '';
    const client = await forgeOfRepository(forge, repo, this.ctx.parentEnv);
    if ((await client.pullRequest(pull.number)).state !== 'open') return '';
    await client.push(repo, target);
    return `; its ${pullRequestName(pull)} given the revert`;
  }

  /** The item's pull request closed unmerged (rejected), or merged (accepted). */
  private async pullRequest(
    item: Item,
    effect: 'close_pull_request' | 'merge_pull_request',
  ): Promise<Carried> {
    const { ctx } = this;
    const forge = ctx.workspace.config.forge;
    const number = item.pullRequest?.number;
    if (number === undefined) return { kind: 'carried' };
    const name = pullRequestName(item.pullRequest);
    if (forge === undefined)
      return {
        kind: 'refused',
        failure: `its ${name} cannot be ${effect === 'merge_pull_request' ? 'merged' : 'closed'}: ralph.config.json sets no "forge"`,
      };
    const client = await forgeOfRepository(forge, await this.repositoryOf(item), ctx.parentEnv);
    const pull = await client.pullRequest(number);
    if (effect === 'close_pull_request') {
      if (pull.state === 'open') await client.closePullRequest(number);
      return { kind: 'carried', detail: `${name} closed` };
    }
    if (pull.state === 'merged') return { kind: 'carried', detail: `${name} was merged` };
    if (pull.state === 'closed')
      return {
        kind: 'refused',
        failure: `its ${name} was closed: nothing to merge`,
      };
    const method = forge.merge === 'none' ? 'merge' : forge.merge;
    const merged = await client.merge(number, method, pull.headSha);
    return merged === 'merged'
      ? { kind: 'carried', detail: `${name} merged (${method})` }
      : {
          kind: 'refused',
          failure: `its ${name} cannot be merged as it is: its base moved on or it conflicts; bring it up to date, then accept it again`,
        };
  }

  /** An effect git or the forge could not make now: tried again later, stored with the item. */
  private async tryLater(item: Item, effect: DecisionEffect, error: unknown): Promise<void> {
    const { ctx } = this;
    const looks = (item.lookAgain?.looks ?? 0) + 1;
    const at = ctx.clock.now() + exponentialBackoffMs(looks, RETRY_BASE_MS, RETRY_CAP_MS);
    ctx.events.error('decision_delayed', {
      item: item.id,
      effect,
      error: ctx.redactor.redact(messageOf(error)),
      retryAt: new Date(at).toISOString(),
    });
    if (error instanceof ForgeError && error.kind === 'auth')
      await ctx.pause(
        `ralph: the forge refused: ${ctx.redactor.redact(error.message)}; fix it, then run "ralph resume"`,
      );
    await ctx.persistently(`recording when ${item.id}'s decision is tried again`, () =>
      ctx.queue.apply(item.id, { kind: 'look_again', at, looks }),
    );
  }

  private async repositoryOf(item: Item): Promise<string> {
    const { workDir } = await this.ctx.sessions.workOf(item);
    const repo = await repositoryRoot(workDir);
    if (repo === undefined) throw new Error(`${workDir} is in no git repository`);
    return repo;
  }
}

import { pushBranch, repositoryRoot } from '../git/worktree.js';
import type { Item } from '../queue/item.js';
import type { StageContext } from '../stage/context.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { holderOf } from '../queue/item-status.js';

/** The first wait after a failed push; it doubles with each failure, up to the longest. */
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 30 * 60_000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The push stage: a successful session's branch pushed to the remote `git.push` names. */
export const pushes: StageFactory = (ctx) => new PushStage(ctx);

/** An item whose branch waits to be pushed (now, or after a failed push, later). */
const waitsToPush = (item: Item): boolean =>
  item.pushTo !== undefined && item.branch !== undefined && holderOf(item.status) !== 'worker';

/** When a push that failed `looks` times is tried again. */
export const retryDelayMs = (looks: number): number =>
  Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, looks - 1), LONGEST_RETRY_MS);

/**
 * Pushes the branch of each item a session finished with success to its remote (never by
 * force), beside the workers: a remote that hangs or refuses holds up no session. A failed push
 * is tried again with backoff, its time stored with the item, so a restart goes on where the
 * last run stood. A branch not pushed yet waits for its next try: the item's work itself is done.
 */
class PushStage implements StageDeclaration {
  readonly name = 'push';
  readonly tends = { where: waitsToPush };
  readonly width = 1;
  readonly pauses = false;
  readonly unmoved = 'waiting';
  readonly awaits = 'due';
  /** Each work dir's repository, read once a run. */
  private readonly repositories = new Map<string, string>();

  constructor(private readonly ctx: StageContext) {}

  /** Whether the workspace pushes branches at all (`git.push`): if not, it never looks. */
  get on(): boolean {
    return this.ctx.workspace.config.git.push !== undefined;
  }

  dueAt(item: Item): number | undefined {
    return Date.parse(item.pushTo?.at ?? '');
  }

  async step(item: Item): Promise<Stepped> {
    await this.push(item);
    return { kind: 'moved' };
  }

  /** Pushes one item's branch, and records that it did, or when to try again. */
  private async push(item: Item): Promise<void> {
    const { ctx } = this;
    const { pushTo, branch } = item;
    const session = item.sessions.at(-1);
    if (pushTo === undefined || branch === undefined || session === undefined) return;
    try {
      await pushBranch(await this.repositoryOf(item), pushTo.remote, branch);
      const applied = await ctx.persistently(`recording the push of ${item.id}`, () =>
        ctx.queue.apply(item.id, { kind: 'pushed', session, now: ctx.clock.now() }),
      );
      if (applied.kind === 'applied')
        ctx.events.info('pushed', { item: item.id, branch, remote: pushTo.remote });
    } catch (error) {
      const looks = pushTo.looks + 1;
      const at = ctx.clock.now() + retryDelayMs(looks);
      ctx.events.error('push_failed', {
        item: item.id,
        branch,
        remote: pushTo.remote,
        error: ctx.redactor.redact(messageOf(error)),
        retryAt: new Date(at).toISOString(),
      });
      await ctx.persistently(`recording when to push ${item.id} again`, () =>
        ctx.queue.apply(item.id, { kind: 'push_deferred', session, at, looks }),
      );
    }
  }

  /** The repository the item's branch is in: its work dir's. */
  private async repositoryOf(item: Item): Promise<string> {
    const { workDir } = await this.ctx.sessions.workOf(item);
    let repo = this.repositories.get(workDir);
    if (repo === undefined) {
      repo = await repositoryRoot(workDir);
      if (repo === undefined) throw new Error(`${workDir} is not in a git repository`);
      this.repositories.set(workDir, repo);
    }
    return repo;
  }
}

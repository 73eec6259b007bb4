import { sessionFiles } from '../archive/paths.js';
import { identityEnv, repositoryRoot } from '../git/worktree.js';
import { maintainRepository, moveTarget } from './git-land.js';
import { landItem, type LandJob, type Landing } from './landing.js';
import { exponentialBackoffMs } from '../lib/backoff.js';
import { readIfExists, writeFileAtomically } from '../lib/fs.js';
import type { Item } from '../queue/item.js';
import type { StageContext } from '../stage/context.js';
import { readyTargetWorktree, targetJob } from './job.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { landingOrder } from '../queue/select.js';
import { holderOf } from '../queue/item-status.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The wait before a landing git could not make is tried again; it doubles with each failure. */
const LAND_RETRY_BASE_MS = 60_000;
const LAND_RETRY_CAP_MS = 30 * 60_000;
/** Tries of a landing that cannot be made (about two hours of them) before its item fails. */
const LAND_LOOKS = 8;

/** Landings in a row that found the target moved under them before one gives way. */
const MAX_MOVED = 5;

/**
 * How long landings may gather in a train before the target moves past them. Quick land gates
 * land many items a second, and each move of the target and each record of the queue would
 * cost a landing about as much as its merge; slow gates make every train one landing long.
 */
const TRAIN_WINDOW_MS = 2_000;

/**
 * Landings made one on top of another in the kept worktree, the target not yet moved: the
 * lander moves it past all of them with one compare-and-swap and records them in one write of
 * the queue. Every commit of a train is a whole landing (merged, its land gates passed on its
 * tree, its session's trailer in it), so the target is before or after each item's merge
 * whenever the runner dies; what a death cuts short is landed again (or found landed).
 */
interface Train {
  /** The repository and target (`targetAt`'s key). */
  key: string;
  repo: string;
  /** Where the target is: the train's landings lie on top of it. */
  from: string;
  startedAt: number;
  landings: Array<{ job: LandJob; landing: Landing & { kind: 'landed' } }>;
}

/** The lander, as a stage of the run. */
export const lander: StageFactory = (ctx, moved) => new Lander(ctx, moved);

/**
 * The night's lander: items whose gates passed wait in the queue as `landing`, and it lands
 * them one at a time, in the order they finished (dependencies first), while the workers go on
 * claiming. A landing that fails hands its item back to the queue (`pending`, for its agent)
 * or fails it; no worker waits for a landing. One git could not make waits, its next try
 * stored with it: each still waiting when a drained run ends is a failure of the run's.
 */
class Lander implements StageDeclaration {
  readonly name = 'lander';
  readonly on = true;
  readonly tends = { status: 'landing', order: landingOrder } as const;
  readonly width = 1;
  readonly pauses = true;
  readonly unmoved = 'stuck';
  readonly awaits = 'due';
  /** Each work dir's repository, each repository's committer identity: read once a run. */
  private readonly repositories = new Map<string, string>();
  private readonly identities = new Map<string, Readonly<Record<string, string>>>();
  /**
   * Where each kept worktree was left by the last landing through it, and whether clean (git
   * asked while the lander goes on).
   */
  private readonly worktreeAt = new Map<string, { commit: string; clean: Promise<boolean> }>();
  /** The landing worktrees whose setup ran this run: their next landings run maintenance. */
  private readonly readied = new Set<string>();
  /** Where this lander left each target (by repository and name), trusted until a swap fails. */
  private readonly targetAt = new Map<string, string>();
  /** Repositories landed into since their last maintenance (merges skip git's own). */
  private readonly unmaintained = new Set<string>();
  /** Landings made whose target has not moved yet. */
  private train: Train | undefined;

  constructor(
    private readonly ctx: StageContext,
    /**
     * Hears of each item a train's landing moved (a landed item frees its dependents, a refused
     * one is claimable again, or failed).
     */
    private readonly moved: (item: Item | undefined) => void,
  ) {}

  /** An item whose landing waits in the train for the target to move. */
  holds(item: Item): boolean {
    return this.train?.landings.some(({ job }) => job.item.id === item.id) === true;
  }

  async step(item: Item): Promise<Stepped> {
    const landed = await this.land(item);
    if (landed === 'elsewhere') return { kind: 'halted' };
    if (landed === 'in train') return { kind: 'waiting' };
    if (landed === 'later') return { kind: 'kept' };
    return { kind: 'moved', item: landed };
  }

  /**
   * Nothing waits to land now: the train leaves (its landings recorded); with none, git's own
   * maintenance of the repositories landed into. A paused night only lets the train leave.
   */
  async idle(paused: boolean): Promise<'again' | 'rest'> {
    if (this.train !== undefined) {
      await this.moveTrain();
      return paused ? 'rest' : 'again';
    }
    if (!paused) await this.maintain();
    return 'rest';
  }

  /** Stopped, or the run is over: what the train landed is whole, and lands. */
  ended(): Promise<void> {
    return this.moveTrain();
  }

  /**
   * Lands one item, and records it in the queue by what became of the landing; `elsewhere`
   * when another runner of the fleet is landing onto its target, `in train` when it waits in
   * a train for the target to move.
   */
  private async land(item: Item): Promise<Item | undefined | 'elsewhere' | 'in train' | 'later'> {
    const { ctx } = this;
    let job: LandJob | undefined;
    try {
      job = await this.jobOf(item);
      const target = job.land.target;
      // A train goes onto one target of one repository, and only where this lander alone
      // moves it: not in a fleet, nor with a remote that may move it too.
      const trains = ctx.queue.fleet === undefined && job.land.push === undefined;
      if (this.train !== undefined && (!trains || this.train.key !== targetKey(job)))
        await this.moveTrain();
      // One lander a target at a time: another runner of the fleet may hold it.
      const release = await ctx.persistently(`waiting to land on ${target}`, () =>
        ctx.queue.lockAlone(target),
      );
      if (release === undefined) return 'elsewhere';
      let landing: Landing;
      try {
        ctx.events.info('land_started', {
          item: item.id,
          target,
          method: job.land.method,
          branch: item.branch ?? '',
        });
        let moved = 0;
        for (;;) {
          landing = await this.landOnce(job, trains);
          if (landing.kind !== 'moved' || ++moved >= MAX_MOVED) break;
          ctx.events.info('land_retried', {
            item: item.id,
            target,
            why:
              landing.where === 'remote'
                ? `${target} moved on ${job.land.push ?? 'the remote'}: landing again on top`
                : `${target} moved: landing again on top`,
          });
        }
      } finally {
        await release();
      }
      if (landing.kind === 'stopped') return undefined;
      if (landing.kind === 'withdrawn') {
        ctx.events.info('land_withdrawn', { item: item.id, target });
        return undefined;
      }
      if (landing.kind === 'moved')
        throw new Error(`the target moved under ${MAX_MOVED} landings in a row`);
      // A landing found made before (a crash cut its record short) is recorded as it is.
      if (landing.kind === 'landed' && trains && !landing.already) {
        const train = (this.train ??= {
          key: targetKey(job),
          repo: job.repo,
          from: landing.onto,
          startedAt: ctx.clock.now(),
          landings: [],
        });
        train.landings.push({ job, landing });
        if (ctx.clock.now() - train.startedAt >= TRAIN_WINDOW_MS) await this.moveTrain();
        return 'in train';
      }
      // Anything else is recorded on the target as the train leaves it (a refusal tells the
      // agent of its commits).
      await this.moveTrain();
      return await this.record(job, landing);
    } catch (error) {
      // Not the item's doing (a git that failed, a repository gone): it waits, tried later.
      if (job !== undefined) this.worktreeAt.delete(job.worktree);
      await this.tryLater(item, job?.land.target ?? '', error);
      return 'later';
    } finally {
      if (job !== undefined) await redactLog(ctx, job.gates.logFile);
    }
  }

  /**
   * One landing through the kept worktree, remembering where it leaves the worktree; in a
   * train (`trains`), on top of the train's last landing, the target left where it is.
   */
  private async landOnce(job: LandJob, trains: boolean): Promise<Landing> {
    const target = targetKey(job);
    const { train } = this;
    const left = this.worktreeAt.get(job.worktree);
    const landing = await landItem({
      ...job,
      worktreeAt: left !== undefined && (await left.clean) ? left.commit : undefined,
      // A fleet's other runners move the target between this one's landings: read each time.
      targetAt: this.ctx.queue.fleet === undefined ? this.targetAt.get(target) : undefined,
      train: trains ? { at: train?.from } : undefined,
    });
    if (landing.kind !== 'landed') {
      this.worktreeAt.delete(job.worktree);
      this.targetAt.delete(target);
      // Moved under the train: its landings are made again on top of the target.
      if (landing.kind === 'moved') this.train = undefined;
      return landing;
    }
    if (!landing.already) {
      this.targetAt.set(target, landing.commit);
      this.unmaintained.add(job.repo);
    }
    // Left at the landed commit, as the next landing wants it unless its land gates changed it.
    if (landing.already || landing.commit === landing.onto) return landing;
    this.worktreeAt.set(job.worktree, { commit: landing.commit, clean: landing.clean });
    return landing;
  }

  /**
   * Moves the target past the train's landings (one compare-and-swap) and records them (one
   * write of the queue), up to the first item a person took out of line meanwhile (see
   * `stillInLine`). A target moved meanwhile, by hand, leaves them waiting to land again on top
   * of it; a git that fails leaves them waiting, tried later.
   */
  private async moveTrain(): Promise<void> {
    const { train, ctx } = this;
    this.train = undefined;
    const first = train?.landings[0];
    if (train === undefined || first === undefined) return;
    const { target } = first.job.land;
    const ids = train.landings.map(({ job }) => job.item.id);
    const { kept, withdrawn, again } = stillInLine(train.landings, await this.inLine(ids));
    if (withdrawn !== undefined) {
      ctx.events.info('land_withdrawn', { item: withdrawn, target });
      for (const id of again)
        ctx.events.info('land_retried', {
          item: id,
          target,
          why: `${withdrawn}, landed before it, was taken out of line: landing again on top of ${target}`,
        });
      // The worktree holds what does not land; the target is where the train found it.
      this.worktreeAt.delete(first.job.worktree);
      this.targetAt.set(train.key, train.from);
    }
    const last = kept.at(-1);
    if (last === undefined) return;
    const tip = last.landing.commit;
    const keptIds = kept.map(({ job }) => job.item.id);
    let moved: boolean;
    let failed = false;
    try {
      moved =
        tip === train.from ||
        (await moveTarget(train.repo, target, tip, train.from, `ralph: land ${keptIds.join(' ')}`));
    } catch (error) {
      moved = false;
      failed = true;
      // Not the items' doing: they wait, tried later.
      for (const { job } of kept) await this.tryLater(job.item, target, error);
    }
    if (!moved) {
      this.targetAt.delete(train.key);
      this.worktreeAt.delete(last.job.worktree);
      for (const id of failed ? [] : keptIds)
        ctx.events.info('land_retried', {
          item: id,
          target,
          why: `${target} moved: landing again on top`,
        });
      return;
    }
    this.targetAt.set(train.key, tip);
    const landings = new Map(kept.map((l) => [l.job.item.id, l]));
    const now = ctx.clock.now();
    const done = await ctx.persistently(`recording the landings on ${target}`, () =>
      ctx.queue.applyAll(
        keptIds.map((id) => {
          const { job, landing } = landings.get(id) ?? last;
          return {
            id,
            event: {
              kind: 'landed',
              landing: { commit: landing.commit, target, onto: landing.onto, checks: job.forge },
              now,
            },
          };
        }),
      ),
    );
    for (const item of done) {
      ctx.events.info('landed', {
        item: item.id,
        target,
        commit: landings.get(item.id)?.landing.commit ?? tip,
        already: false,
      });
      this.moved(item);
    }
  }

  /**
   * A landing git could not make: the item waits to land, its next try (with a backoff that
   * grows with each failure) stored with it, so that a restart waits as this run would.
   */
  private async tryLater(item: Item, target: string, error: unknown): Promise<void> {
    const { ctx } = this;
    const looks = (item.lookAgain?.looks ?? 0) + 1;
    const at = ctx.clock.now() + exponentialBackoffMs(looks, LAND_RETRY_BASE_MS, LAND_RETRY_CAP_MS);
    const reason = ctx.redactor.redact(messageOf(error));
    const spent = looks >= LAND_LOOKS;
    ctx.events.error('land_failed', {
      item: item.id,
      target,
      error: reason,
      ...(spent ? { looks } : { retryAt: new Date(at).toISOString() }),
    });
    const why = `landing on ${target} could not be made: ${reason}`;
    // Its reason is on the item, not in the log alone; after its looks it fails with it.
    await ctx.persistently(`recording when ${item.id} lands again`, () =>
      ctx.queue.apply(
        item.id,
        spent
          ? {
              kind: 'landing_refused',
              refusal: { outcome: 'land_failed', error: `${why} (${looks} tries)`, failure: why },
              maxRounds: 0,
              now: ctx.clock.now(),
            }
          : { kind: 'look_again', at, looks, reason: why },
      ),
    );
  }

  /** Which of `ids` are still in line to land, as the queue has them now. */
  private async inLine(ids: readonly string[]): Promise<ReadonlySet<string>> {
    const items = await this.ctx.persistently('reading the items landing', () =>
      this.ctx.queue.dependencyClosure(ids),
    );
    return new Set(items.filter((i) => holderOf(i.status) === 'lander').map((i) => i.id));
  }

  /** git's automatic maintenance of the repositories landed into, once nothing waits to land. */
  private async maintain(): Promise<void> {
    for (const repo of this.unmaintained) await maintainRepository(repo);
    this.unmaintained.clear();
  }

  private async record(
    job: LandJob,
    landing: Landing & { kind: 'landed' | 'refused' },
  ): Promise<Item | undefined> {
    const { ctx } = this;
    const { item, land } = job;
    const now = ctx.clock.now();
    if (landing.kind === 'landed') {
      const done = await ctx.persistently(`recording the landing of ${item.id}`, () =>
        ctx.queue.apply(item.id, {
          kind: 'landed',
          landing: {
            commit: landing.commit,
            target: land.target,
            onto: landing.onto,
            checks: job.forge,
          },
          now,
        }),
      );
      if (done.kind === 'applied')
        ctx.events.info('landed', {
          item: item.id,
          target: land.target,
          commit: landing.commit,
          already: landing.already,
          ...(land.push === undefined ? {} : { pushedTo: land.push }),
        });
      return done.kind === 'applied' ? done.item : undefined;
    }
    const refusal = {
      ...landing.refusal,
      failure: ctx.redactor.redact(landing.refusal.failure),
      error: ctx.redactor.redact(landing.refusal.error),
    };
    const refused = await ctx.persistently(`recording the landing of ${item.id}`, () =>
      ctx.queue.apply(item.id, {
        kind: 'landing_refused',
        refusal,
        maxRounds: land.maxRounds,
        now,
      }),
    );
    const after = refused.kind === 'applied' ? refused.item : undefined;
    ctx.events.warn('land_refused', {
      item: item.id,
      target: land.target,
      outcome: refusal.outcome,
      error: refusal.error,
      itemStatus: after?.status,
    });
    return after;
  }

  /** What landing the item takes: its repository, its settings, the kept worktree, the gates. */
  private async jobOf(item: Item): Promise<LandJob> {
    const { ctx } = this;
    const work = await ctx.sessions.workOf(item);
    const repo = this.repositories.get(work.workDir) ?? (await repositoryRoot(work.workDir));
    if (repo === undefined) throw new Error(`${work.workDir} is in no git repository`);
    this.repositories.set(work.workDir, repo);
    const identity = this.identities.get(repo) ?? (await identityEnv(repo));
    this.identities.set(repo, identity);
    const logFile = sessionFiles(
      ctx.workspace.paths.sessions,
      item.sessions.at(-1) ?? item.id,
    ).land;
    const job = targetJob(ctx, {
      item,
      work,
      repo,
      identity,
      kind: 'land',
      logFile,
      // Its setup the first time this run, its maintenance each time after.
      ready: async (worktree) => {
        const wanted = this.readied.has(worktree) ? 'maintenance' : 'setup';
        await readyTargetWorktree(ctx, { item, work, repo, worktree, wanted, logFile });
        this.readied.add(worktree);
      },
    });
    return { ...job, inLine: async () => (await this.inLine([item.id])).has(item.id) };
  }
}

/**
 * What of a train still lands, given the items still in line to land: the landings before the
 * first item no longer in line (`withdrawn`: a person cancelled it while the train gathered).
 * Those after it were merged on top of it: `again` names the ones still in line, which land
 * again on top of the target.
 */
export function stillInLine<L extends { job: { item: { id: string } } }>(
  landings: readonly L[],
  inLine: ReadonlySet<string>,
): { kept: readonly L[]; withdrawn?: string; again: string[] } {
  const cut = landings.findIndex(({ job }) => !inLine.has(job.item.id));
  if (cut === -1) return { kept: landings, again: [] };
  return {
    kept: landings.slice(0, cut),
    withdrawn: landings[cut]?.job.item.id,
    again: landings
      .slice(cut + 1)
      .map(({ job }) => job.item.id)
      .filter((id) => inLine.has(id)),
  };
}

/** A target of a repository: the key of what the lander knows of it. */
function targetKey(job: LandJob): string {
  return `${job.repo}\n${job.land.target}`;
}

/** The land gates' log, redacted once they end. */
async function redactLog(ctx: StageContext, file: string): Promise<void> {
  const log = await readIfExists(file).catch(() => undefined);
  if (log === undefined) return;
  const redacted = ctx.redactor.redact(log);
  // Written again only when a secret was in it: a landing's every write counts.
  if (redacted !== log) await writeFileAtomically(file, redacted).catch(() => {});
}

import fs from 'node:fs';
import path from 'node:path';
import { sessionFiles } from '../archive/paths.js';
import { itemWorktree } from '../config/workspace.js';
import { repositoryRoot } from '../git/worktree.js';
import type { Item } from '../queue/item.js';
import type { StageContext } from '../stage/context.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { setupOrder } from '../queue/select.js';
import { dependencyStore, refillSpares, type GivenTree } from './dependencies.js';
import { makeReady } from './make-ready.js';
import { withRepositoryEnvironment } from './repository.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The setup stage: items whose worktree is not ready wait as `preparing` for it. */
export const setups: StageFactory = (ctx) => new Setups(ctx);

/**
 * Makes items' worktrees ready before their sessions, beside the workers (up to as many at once
 * as there are workers): a new worktree gets the files the repository's `.worktreeinclude` lists
 * and its `setup` commands run; a kept one its `maintenance`. The commands run with the network
 * (under the sandbox, the hosts `environment.allowHosts` names) and the secrets named for them,
 * neither of which the agent gets. A failure is the environment's, never the agent's: the item
 * is parked with the command and the end of its output, no attempt spent.
 */
class Setups implements StageDeclaration {
  readonly name = 'setup';
  readonly on = true;
  readonly tends = { status: 'preparing', order: setupOrder } as const;
  readonly pauses = true;
  /** A failed setup parks its item for a person: nothing waits on the stage. */
  readonly unmoved = 'waiting';
  readonly awaits = 'all';

  constructor(private readonly ctx: StageContext) {}

  get width(): number {
    return Math.max(1, this.ctx.workspace.config.run.workers);
  }

  async step(item: Item): Promise<Stepped> {
    return { kind: 'moved', item: await this.prepare(item) };
  }

  /** Makes one item's worktree ready and records how it went; the item as it is after. */
  async prepare(item: Item): Promise<Item | undefined> {
    const { ctx } = this;
    const wanted = item.environment?.wanted ?? 'setup';
    // Beside the files of the session that wanted it.
    const log = sessionFiles(ctx.workspace.paths.sessions, item.sessions.at(-1) ?? item.id).setup;
    const started = ctx.clock.now();
    let failure: string | undefined;
    let trees: GivenTree[] = [];
    try {
      const work = await ctx.sessions.workOf(item);
      const worktree = itemWorktree(ctx.workspace.paths, item.id);
      const repo = await repositoryRoot(work.workDir);
      if (repo === undefined) throw new Error(`${work.workDir} is in no git repository`);
      const environment = await withRepositoryEnvironment(work.environment, repo);
      const commands = wanted === 'setup' ? environment.setup : environment.maintenance;
      ctx.events.info('environment_started', {
        item: item.id,
        wanted,
        worktree,
        commands: commands.length,
      });
      const readied = await makeReady(ctx, {
        itemId: item.id,
        wanted,
        environment,
        sandbox: work.sandbox,
        repo,
        worktree,
        workDir: path.join(worktree, path.relative(repo, work.workDir)),
        logFile: log,
        signal: ctx.signal,
        onRefused: (refusal) =>
          ctx.events.warn('egress_blocked', {
            item: item.id,
            session: item.sessions.at(-1) ?? item.id,
            by: wanted,
            ...refusal,
          }),
      });
      if (readied.copied.length > 0)
        ctx.events.info('worktree_included', { item: item.id, files: readied.copied.length });
      for (const tree of readied.trees)
        ctx.events.info('dependencies_given', { item: item.id, ...tree });
      ({ trees } = readied);
      failure = readied.failure;
    } catch (error) {
      failure = ctx.redactor.redact(
        `the ${wanted} of ${item.id} could not run: ${messageOf(error)}`,
      );
      fs.appendFileSync(log, `[${failure}]\n`, { mode: 0o600 });
    }
    // Stopped with the run: it waits for the next one, as it is.
    if (ctx.stopped()) return undefined;
    const now = ctx.clock.now();
    if (failure === undefined) {
      ctx.events.info('environment_ready', {
        item: item.id,
        wanted,
        durationMs: now - started,
        log,
      });
      const applied = await this.apply(item, { kind: 'environment_ready', log, now });
      // The item is on its way: the next worktree's copy is made now, off its way.
      await this.refill(trees);
      return applied;
    }
    ctx.events.error('environment_failed', { item: item.id, wanted, failure, log });
    return this.apply(item, { kind: 'environment_failed', failure, log, now });
  }

  private async refill(trees: readonly GivenTree[]): Promise<void> {
    const store = dependencyStore(this.ctx.workspace.paths.worktrees);
    for (const tree of trees.filter((given) => given.given !== 'held'))
      await refillSpares(store, tree.key, tree.paths).catch((error: unknown) =>
        this.ctx.events.warn('dependencies_spare_failed', {
          key: tree.key,
          error: messageOf(error),
        }),
      );
  }

  private async apply(
    item: Item,
    event: Parameters<StageContext['queue']['apply']>[1],
  ): Promise<Item | undefined> {
    const applied = await this.ctx.persistently(`recording the setup of ${item.id}`, () =>
      this.ctx.queue.apply(item.id, event),
    );
    return applied.kind === 'applied' ? applied.item : undefined;
  }
}

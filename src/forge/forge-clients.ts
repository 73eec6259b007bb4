import { repositoryRoot } from '../git/worktree.js';
import type { Item } from '../queue/item.js';
import type { StageContext } from '../stage/context.js';
import type { ForgeConfig } from './config-schema.js';
import type { Forge } from './forge.js';
import { forgeOfRepository } from './open.js';
import { holderOf, statusIs } from '../queue/item-status.js';

/** The repository of an item's work and the forge client of that repository, each found once a run. */
export class ForgeClients {
  private readonly repositories = new Map<string, string>();
  private readonly forges = new Map<string, Forge>();

  constructor(private readonly ctx: StageContext) {}

  /** The repository of the item's work dir. */
  async repositoryOf(item: Item): Promise<string> {
    const { workDir } = await this.ctx.sessions.workOf(item);
    const repo = this.repositories.get(workDir) ?? (await repositoryRoot(workDir));
    if (repo === undefined) throw new Error(`${workDir} is in no git repository`);
    this.repositories.set(workDir, repo);
    return repo;
  }

  async forgeOf(forge: ForgeConfig, repo: string): Promise<Forge> {
    const known = this.forges.get(repo);
    if (known !== undefined) return known;
    const opened = await forgeOfRepository(forge, repo, this.ctx.parentEnv);
    this.forges.set(repo, opened);
    return opened;
  }

  /**
   * Records which pull requests waiting for a person they merged or closed (`forge.maxOpen`
   * counts the rest); a pull request the forge cannot tell of now is looked at next time.
   */
  async lookAtWaiting(forge: ForgeConfig): Promise<void> {
    const { ctx } = this;
    const items = await ctx.persistently('counting open pull requests', () => ctx.queue.list());
    for (const item of items.filter(awaitingPerson))
      await this.recordEnded(forge, item).catch(() => undefined);
  }

  /** A pull request waiting for a person, its end recorded once they merged or closed it. */
  private async recordEnded(forge: ForgeConfig, item: Item): Promise<void> {
    const pr = item.pullRequest;
    if (pr === undefined) return;
    const client = await this.forgeOf(forge, await this.repositoryOf(item));
    const pull = await client.pullRequest(pr.number);
    if (pull.state === 'open') return;
    const now = this.ctx.clock.now();
    await this.ctx.persistently(`recording pull request #${pr.number}`, () =>
      this.ctx.queue.apply(item.id, {
        kind: 'pull_request_ended',
        merged: pull.state === 'merged',
        now,
      }),
    );
  }
}

/** Done, its pull request open for a person's review (not known merged or closed). */
const awaitingPerson = (item: Item) =>
  holderOf(item.status) === 'person' &&
  statusIs(item.status, 'pullRequestOpen') &&
  item.pullRequest !== undefined;

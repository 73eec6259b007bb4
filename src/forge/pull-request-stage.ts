import type { ForgeConfig } from './config-schema.js';
import { pullRequestName } from '../queue/pull-request-name.js';
import { ForgeError } from './forge.js';
import { ForgeClients } from './forge-clients.js';
import { resolveCommit } from '../git/worktree.js';
import { exponentialBackoffMs } from '../lib/backoff.js';
import { isAccepted } from '../queue/decisions.js';
import type { Item } from '../queue/item.js';
import type { ItemEvent } from '../queue/lifecycle.js';
import type { ChecksRefusal } from '../queue/transitions.js';
import type { StageContext } from '../stage/context.js';
import {
  baseConflictText,
  changesRequestedText,
  checksFailedComment,
  checksFailureText,
  fixesLines,
  pullRequestBody,
  sessionTold,
  taskOf,
} from './pull-request-text.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { checksOrder } from '../queue/select.js';
import { holderOf, statusIs } from '../queue/item-status.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Looks at one item's checks grow apart up to this many times the first wait. */
const MAX_POLL_FACTOR = 10;
/**
 * Looks for the last session's record (its summary goes in the body), a second apart, before it
 * goes without: the record is archived just after the item is recorded, later on a loaded machine.
 * An item no agent worked on (no attempt: ralph's own change of the rules' file) has none.
 */
const RECORD_LOOKS = 30;
const RECORD_LOOK_MS = 1000;
/** The longest wait after the forge failed to answer (down, rate-limited). */
const MAX_OUTAGE_WAIT_MS = 10 * 60_000;

/** The pull-request stage, as a stage of the run. */
export const pullRequests: StageFactory = (ctx) => new PullRequestStage(ctx);

/**
 * The forge stage, beside the lander: items whose work is done wait in the queue as
 * `awaiting_checks`. It pushes each one's branch and opens its pull request, looks at the
 * checks of its head (conditional requests, backing off), and moves it on: green → merged or
 * ready to merge; red → back to its agent with what failed, or failed after its rounds. No
 * worker waits for a check; a restart finds the waiting items in the queue, and when to look at
 * each again stored with it. An item whose checks cannot be read waits in the queue.
 */
class PullRequestStage implements StageDeclaration {
  readonly name = 'pull requests';
  readonly tends = { status: 'awaiting_checks', order: checksOrder } as const;
  readonly width = 1;
  readonly pauses = true;
  readonly unmoved = 'waiting';
  /** A drained run waits for the checks of every pull request it opened. */
  readonly awaits = 'all';
  private readonly clients: ForgeClients;
  /** Since when the forge has not answered, and the failures in a row. */
  private outage: { since: number; failures: number; until: number } | undefined;
  /** Time the forge was down this run: deadlines move by it (an outage never fails an item). */
  private outageMs = 0;
  /** When the done items' pull requests were last looked at (`forge.maxOpen`). */
  private doneLookedAt: number | undefined;

  constructor(private readonly ctx: StageContext) {
    this.clients = new ForgeClients(ctx);
  }

  private get forge(): ForgeConfig | undefined {
    return this.ctx.workspace.config.forge;
  }

  get on(): boolean {
    return this.forge !== undefined;
  }

  /** Items left awaiting checks with no forge to tend them are said, once. */
  async off(): Promise<void> {
    const items = await this.ctx.queue.inStatus('awaiting_checks').catch(() => []);
    if (items.length === 0) return;
    this.ctx.events.warn('forge_unconfigured', {
      items: items.map((item) => item.id).join(', '),
      reason:
        'items await the checks of their pull requests, and ralph.config.json sets no "forge"',
    });
  }

  /** People merge and close pull requests at their pace: looked at as seldom as checks are. */
  get pollMs(): number {
    return (this.forge?.checks.poll ?? 0) * 1000 * MAX_POLL_FACTOR;
  }

  /** It has yet to look at which of the pull requests waiting for a person were merged or closed. */
  get pending(): boolean {
    return this.forge?.maxOpen !== undefined && this.doneLookedAt === undefined;
  }

  /**
   * Why no new item may start (`forge.maxOpen` reached); undefined when one may. Counted from
   * the queue alone, so that no claim waits on the forge: the pull requests waiting for a person
   * (which this stage's looks mark merged or closed), those about to be (items awaiting their
   * checks), and the items running, which may open one each.
   */
  async refusesClaims(): Promise<string | undefined> {
    const { ctx } = this;
    const forge = this.forge;
    if (forge?.maxOpen === undefined) return undefined;
    // The queue's tally has it (in SQL for Postgres): no item is read whole at every claim.
    const { counts } = await ctx.persistently('counting open pull requests', () =>
      ctx.queue.tally(),
    );
    const open =
      (counts.awaiting_checks ?? 0) + (counts.running ?? 0) + (counts.awaiting_merge ?? 0);
    if (open < forge.maxOpen) return undefined;
    return `${open} pull request${open === 1 ? ' is' : 's are'} open and not merged (forge.maxOpen ${forge.maxOpen}): no new item starts until one is merged or closed`;
  }

  async beforeLook(): Promise<void> {
    const forge = this.forge;
    const lookedAt = this.ctx.clock.now();
    if (forge?.maxOpen === undefined || lookedAt < (this.doneLookedAt ?? 0) + this.pollMs) return;
    await this.clients.lookAtWaiting(forge);
    // Set once the look is over: until then the stage is busy, and a drained run waits for it.
    this.doneLookedAt = lookedAt;
  }

  /** One runner of a fleet tends the pull requests at a time. */
  lock(): Promise<(() => Promise<void>) | undefined> {
    return this.ctx.persistently('tending pull requests', () => this.ctx.queue.lockAlone('forge'));
  }

  /** While the forge is down, no item is looked at. */
  heldUntil(): number | undefined {
    return this.outage?.until;
  }

  async step(item: Item): Promise<Stepped> {
    const forge = this.forge;
    if (forge === undefined) return { kind: 'waiting' };
    const tended = await this.tend(forge, item);
    if (tended === 'halted')
      return { kind: 'halted', ms: Math.max(0, (this.outage?.until ?? 0) - this.ctx.clock.now()) };
    return tended === 'waiting' ? { kind: 'waiting' } : { kind: 'moved', item: tended };
  }

  /**
   * One look at an item: published when it has no pull request at its head yet, else its
   * checks read; the item as it is after when it moved. `halted` when the forge is down or
   * refuses the token (no other item is tried).
   */
  private async tend(
    forge: ForgeConfig,
    item: Item,
  ): Promise<Item | undefined | 'waiting' | 'halted'> {
    const { ctx } = this;
    try {
      const moved =
        item.checksSince === undefined
          ? await this.publish(forge, item)
          : await this.look(forge, item);
      if (this.outage !== undefined) {
        this.outageMs += ctx.clock.now() - this.outage.since;
        ctx.events.info('forge_reachable', { after: this.outage.failures });
        this.outage = undefined;
      }
      return moved;
    } catch (error) {
      return this.fault(forge, item, error);
    }
  }

  /** What a failed call to the forge means for the night. */
  private async fault(
    forge: ForgeConfig,
    item: Item,
    error: unknown,
  ): Promise<Item | undefined | 'halted'> {
    const { ctx } = this;
    const message = ctx.redactor.redact(messageOf(error));
    const kind = error instanceof ForgeError ? error.kind : 'unavailable';
    if (kind === 'auth' || kind === 'not_found') {
      // Every pull request would fail alike: a person fixes the token or the settings.
      ctx.events.error('forge_refused', { item: item.id, error: message });
      await ctx.pause(`ralph: the forge refused: ${message}; fix it, then run "ralph resume"`);
      return 'halted';
    }
    if (kind === 'refused') {
      // This item's request was wrong (a pull request GitHub will not open): it fails alone.
      const failed = await this.record(item, {
        kind: 'checks_failed',
        refusal: {
          outcome: 'pull_request_refused',
          error: message,
          failure: message,
          checks: 'refused',
        },
        maxRounds: forge.checks.maxFixRounds,
        now: ctx.clock.now(),
      });
      ctx.events.error('forge_refused', { item: item.id, error: message });
      return failed;
    }
    const now = ctx.clock.now();
    const failures = (this.outage?.failures ?? 0) + 1;
    const waitMs = exponentialBackoffMs(failures, forge.checks.poll * 1000, MAX_OUTAGE_WAIT_MS);
    this.outage = { since: this.outage?.since ?? now, failures, until: now + waitMs };
    ctx.events.warn('forge_unavailable', {
      error: message,
      retryAt: new Date(now + waitMs).toISOString(),
    });
    // The outage is waited out by the run; the item keeps when, for a run that starts meanwhile.
    await this.lookAgain(item.id, now + waitMs, item.lookAgain?.looks ?? 0);
    return 'halted';
  }

  /** Pushes the item's branch (or the land target) and opens or updates its pull request. */
  private async publish(forge: ForgeConfig, item: Item): Promise<Item | undefined | 'waiting'> {
    const { ctx } = this;
    const session = await sessionTold(ctx.workspace.paths, item);
    const looks = item.lookAgain?.looks ?? 0;
    if (session === undefined && item.attempts > 0 && looks < RECORD_LOOKS) {
      await this.lookAgain(item.id, ctx.clock.now() + RECORD_LOOK_MS, looks + 1);
      return 'waiting';
    }
    const repo = await this.clients.repositoryOf(item);
    const client = await this.clients.forgeOf(forge, repo);
    const kind = item.landedOn === undefined ? 'item' : 'landed';
    const head = kind === 'landed' ? item.landedOn : item.branch;
    if (head === undefined) throw new Error(`item ${item.id} has no branch to push`);
    const sha = await resolveCommit(repo, head).catch(() => {
      throw new ForgeError('refused', `the branch ${head} of item ${item.id} is not in ${repo}`);
    });
    // Only the commit ralph recorded (gated, and reviewed when review is on) is pushed as the work.
    if (kind === 'item' && item.head !== undefined && sha !== item.head)
      throw new ForgeError(
        'refused',
        `the branch ${head} of item ${item.id} was moved to ${sha.slice(0, 12)} since ralph recorded ${item.head.slice(0, 12)} (the commit gated and reviewed): it was not pushed`,
      );
    // The item's own branch may replace what ralph last pushed there (the forge's update of
    // it, say); the shared land target is never pushed by force.
    const lease = kind === 'item' && item.pullRequest?.head === head ? item.checksHead : undefined;
    await client.push(repo, head, lease);
    const task = await taskOf(ctx.workspace.root, item);
    const base = (kind === 'item' ? item.base : undefined) ?? forge.base;
    const pull = await client.openPullRequest({
      head,
      base,
      title: kind === 'landed' ? `ralph: ${head}` : item.title,
      body: ctx.redactor.redact(
        pullRequestBody(item, task, session, await this.fixesOf(item, head)),
      ),
      draft: forge.draft,
      labels: forge.labels,
      reviewers: forge.reviewers,
    });
    const { number, url } = pull;
    const gitlab = forge.kind === 'gitlab' ? { forge: 'gitlab' as const } : {};
    const pullRequest = { number, url, head, base, kind, ...gitlab } as const;
    const after = await this.record(item, {
      kind: 'pull_request_opened',
      opened: { pullRequest, head: sha },
      now: ctx.clock.now(),
    });
    ctx.events.info('pull_request_opened', {
      item: item.id,
      number: pull.number,
      url: pull.url,
      head,
      commit: sha,
    });
    await this.schedule(item.id, forge, 0);
    return after !== undefined && holderOf(after.status) === 'checks' ? 'waiting' : after;
  }

  /** Reads the item's pull request and the checks of its head, and records what they say. */
  private async look(forge: ForgeConfig, item: Item): Promise<Item | undefined | 'waiting'> {
    const { ctx } = this;
    const pr = item.pullRequest;
    if (pr === undefined) throw new Error(`item ${item.id} awaits checks without a pull request`);
    const client = await this.clients.forgeOf(forge, await this.clients.repositoryOf(item));
    const now = ctx.clock.now();
    const pull = await client.pullRequest(pr.number);
    if (pull.state === 'merged')
      return this.record(item, { kind: 'checks_passed', checks: 'merged', merged: true, now });
    if (pull.state === 'closed') {
      ctx.events.warn('pull_request_closed', { item: item.id, number: pr.number });
      return this.record(item, { kind: 'pull_request_closed', now });
    }
    const verdict = await client.checks(pull.headSha, forge.checks.required);
    const deadline =
      Date.parse(item.checksSince ?? '') + forge.checks.timeout * 1000 + this.outageMs;
    if (verdict.state === 'pending') {
      const line = `pending: ${verdict.waitingFor.length === 0 ? 'no check reported yet' : verdict.waitingFor.join(', ')}`;
      if (now >= deadline)
        return this.refuse(forge, item, {
          outcome: 'checks_timeout',
          error: `the checks of ${pullRequestName(pr)} did not end within forge.checks.timeout (${line})`,
          failure: `The checks of ${pullRequestName(pr)} did not end in time (${line}).`,
          checks: `timed out, ${line}`,
        });
      await this.seen(item, line, forge);
      return 'waiting';
    }
    if (verdict.state === 'failure') {
      const round = { number: (item.checkRounds ?? 0) + 1, of: forge.checks.maxFixRounds };
      const names = verdict.failed.map((check) => check.name);
      return this.refuse(forge, item, {
        outcome: 'checks_failed',
        error: `${pullRequestName(pr)}: ${names.join(', ')} failed`,
        failure: checksFailureText({ ...item, checksHead: pull.headSha }, verdict.failed, round),
        checks: `failed: ${names.join(', ')}`,
      });
    }
    const green = `green: ${verdict.passed.join(', ')}`;
    if (forge.reviews || forge.requireApproval) {
      const reviews = await client.reviews(pr.number);
      if (forge.reviews && reviews.changesRequested.length > 0) {
        const round = { number: (item.checkRounds ?? 0) + 1, of: forge.checks.maxFixRounds };
        return this.refuse(forge, item, {
          outcome: 'changes_requested',
          error: `${pullRequestName(pr)}: ${reviews.changesRequested.map((r) => r.reviewer).join(', ')} requested changes`,
          failure: changesRequestedText(item, reviews.changesRequested, round),
          checks: `${green}; changes requested`,
        });
      }
      if (forge.requireApproval && !reviews.approved) {
        await this.seen(item, `${green}; awaiting approval`, forge);
        return 'waiting';
      }
    }
    // Work a person accepted already (another candidate taken) is merged once green.
    if (forge.merge === 'none' && !isAccepted(item))
      return this.record(item, { kind: 'checks_passed', checks: green, merged: false, now });
    const method = forge.merge === 'none' ? 'merge' : forge.merge;
    const merged = await client.merge(pr.number, method, pull.headSha);
    if (merged === 'merged') {
      ctx.events.info('pull_request_merged', { item: item.id, number: pr.number });
      return this.record(item, { kind: 'checks_passed', checks: green, merged: true, now });
    }
    // The base moved: its branch brought up to it, the checks run again on the new head.
    const updated = await client.updateBranch(pr.number, pull.headSha);
    if (updated === 'conflict') {
      const round = { number: (item.checkRounds ?? 0) + 1, of: forge.checks.maxFixRounds };
      return this.refuse(forge, item, {
        outcome: 'checks_failed',
        error: `${pullRequestName(pr)}: ${pr.base} moved and conflicts with it`,
        failure: baseConflictText(item, round),
        checks: `${green}; conflicts with ${pr.base}`,
      });
    }
    ctx.events.info('pull_request_updated', { item: item.id, number: pr.number, base: pr.base });
    const updatedHead = (await client.pullRequest(pr.number)).headSha;
    await this.record(item, {
      kind: 'checks_seen',
      checks: `${pr.base} moved: branch updated, checks again`,
      head: updatedHead,
      now: ctx.clock.now(),
    });
    await this.schedule(item.id, forge, 0);
    return 'waiting';
  }

  /** Red checks (or changes asked for): back to the agent, or failed with a comment. */
  private async refuse(
    forge: ForgeConfig,
    item: Item,
    refusal: ChecksRefusal,
  ): Promise<Item | undefined> {
    const { ctx } = this;
    const redacted = {
      ...refusal,
      error: ctx.redactor.redact(refusal.error),
      failure: ctx.redactor.redact(refusal.failure),
    };
    const after = await this.record(item, {
      kind: 'checks_failed',
      refusal: redacted,
      maxRounds: forge.checks.maxFixRounds,
      now: ctx.clock.now(),
    });
    ctx.events.warn('checks_failed', {
      item: item.id,
      outcome: refusal.outcome,
      error: redacted.error,
      itemStatus: after?.status,
    });
    // A failed item's pull request says why, for the person who reads it there.
    const pr = item.pullRequest;
    if (after === undefined || !statusIs(after.status, 'failure') || pr === undefined) return after;
    const names = refusal.checks
      .replace(/^[^:]*: ?/, '')
      .split(', ')
      .filter(Boolean);
    const client = await this.clients.forgeOf(forge, await this.clients.repositoryOf(item));
    await client.comment(pr.number, checksFailedComment(after, names)).catch((error: unknown) =>
      ctx.events.warn('forge_comment_failed', {
        item: item.id,
        error: ctx.redactor.redact(messageOf(error)),
      }),
    );
    return after;
  }

  /** Records what the checks say when it changed, and when to look again. */
  private async seen(item: Item, line: string, forge: ForgeConfig): Promise<void> {
    const { ctx } = this;
    const looks = item.lookAgain?.looks ?? 0;
    if (item.checks !== line) {
      await this.record(item, { kind: 'checks_seen', checks: line, now: ctx.clock.now() });
      await this.schedule(item.id, forge, 0);
    } else await this.schedule(item.id, forge, looks + 1);
  }

  /** The next look at an item: the poll interval, growing while nothing changes. */
  private schedule(id: string, forge: ForgeConfig, looks: number): Promise<void> {
    const first = forge.checks.poll * 1000;
    const wait = exponentialBackoffMs(looks + 1, first, first * MAX_POLL_FACTOR);
    return this.lookAgain(id, this.ctx.clock.now() + wait, looks);
  }

  /** When to look at an item again, stored with it: a restart waits as this run would. */
  private async lookAgain(id: string, at: number, looks: number): Promise<void> {
    await this.ctx.persistently(`recording when to look at ${id} again`, () =>
      this.ctx.queue.apply(id, { kind: 'look_again', at, looks }),
    );
  }

  private async record(item: Item, event: ItemEvent): Promise<Item | undefined> {
    const applied = await this.ctx.persistently(`recording the checks of ${item.id}`, () =>
      this.ctx.queue.apply(item.id, event),
    );
    return applied.kind === 'applied' ? applied.item : undefined;
  }

  /**
   * The issues its pull request closes when merged (`import.writeBack`): the item's own, or,
   * for the land target's, those of every item landed on it and not merged yet.
   */
  private async fixesOf(item: Item, head: string): Promise<string[]> {
    if (!this.ctx.workspace.config.import.writeBack) return [];
    if (item.landedOn === undefined) return fixesLines([item]);
    const items = await this.ctx.queue.list();
    return fixesLines(items.filter((i) => i.landedOn === head && i.mergedAt === undefined));
  }
}

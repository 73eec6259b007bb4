import { exponentialBackoffMs } from '../lib/backoff.js';
import type { Item } from '../queue/item.js';
import type { StageContext } from '../stage/context.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { CLOSED_STATE_TYPES, LinearRefusal, openLinear, type LinearTracker } from './tracker.js';
import { commentOf, commentId, stateFor, toldOf, type Told } from './told.js';

/** The first wait after Linear did not answer, and the longest. */
const FIRST_WAIT_MS = 30_000;
const MAX_WAIT_MS = 10 * 60_000;

/** An imported Linear issue whose state does not say yet where its item is. */
function untold(item: Item): boolean {
  const { source } = item;
  if (source?.kind !== 'linear' || source.remoteId === undefined) return false;
  const told = toldOf(item);
  return told !== undefined && told !== source.told;
}

/** The Linear stage, when the workspace tells imported issues back (`import.writeBack`). */
export const linearWriteBack: StageFactory = (ctx) => new LinearWriteBack(ctx);

/**
 * Moves each imported Linear issue as its item is worked: to the team's started state when it
 * starts, its review state while it waits on a person, done when accepted or merged, back when a
 * person rejected it (the note as a comment) or it failed, with a comment of the result, its cost
 * and links. States are found by type, never by name. Each move is made once: the issue's state is
 * read first (a runner killed after the move and before its record finds it there), and each
 * comment carries an id of ralph's that Linear refuses twice; then it is recorded with the item.
 */
class LinearWriteBack implements StageDeclaration {
  readonly name = 'linear';
  readonly tends = { where: untold };
  readonly width = 1;
  readonly pauses = false;
  readonly unmoved = 'waiting';
  readonly awaits = 'due';
  private tracker: Promise<LinearTracker> | undefined;
  /** Since when Linear has not answered: no issue is told until then. */
  private outage: { failures: number; until: number } | undefined;

  constructor(private readonly ctx: StageContext) {}

  get on(): boolean {
    return this.ctx.workspace.config.import.writeBack;
  }

  /** While Linear does not answer, no issue is told. */
  heldUntil(): number | undefined {
    return this.outage?.until;
  }

  /** One runner of a fleet tells Linear at a time (a second would only find it told). */
  lock(): Promise<(() => Promise<void>) | undefined> {
    return this.ctx.persistently('telling Linear', () => this.ctx.queue.lockAlone('linear'));
  }

  /** Linear, opened on the first telling (a failed opening is tried again on the next). */
  private open(): Promise<LinearTracker> {
    if (this.tracker === undefined) {
      const { linear } = this.ctx.workspace.config;
      this.tracker = openLinear({ ...linear, token: this.ctx.parentEnv[linear.tokenEnv] });
      this.tracker.catch(() => (this.tracker = undefined));
    }
    return this.tracker;
  }

  async step(item: Item): Promise<Stepped> {
    const told = toldOf(item);
    if (told === undefined || item.source?.remoteId === undefined) return { kind: 'waiting' };
    try {
      await this.tell(item, item.source.remoteId, told);
      this.outage = undefined;
      return { kind: 'moved' };
    } catch (error) {
      return this.fault(item, told, error);
    }
  }

  /** Moves the issue (when it is not where it is to be), comments, and records it told. */
  private async tell(item: Item, issueId: string, told: Told): Promise<void> {
    const { ctx } = this;
    const tracker = await this.open();
    const issue = await tracker.issue(issueId);
    const state = stateFor(told, await tracker.teamStates(issue.teamKey));
    // A person closed it in Linear meanwhile: theirs to say, unless ralph put it there itself.
    const closedByPerson = CLOSED_STATE_TYPES.has(issue.state.type) && item.source?.told !== 'done';
    const moved = state !== undefined && state.id !== issue.state.id && !closedByPerson;
    if (moved) await tracker.move(issue.id, state.id);
    const comment = commentOf(item, told);
    if (comment !== undefined)
      await tracker.comment(issue.id, commentId(item, told), ctx.redactor.redact(comment));
    await this.record(item, told);
    ctx.events.info('linear_told', {
      item: item.id,
      issue: issue.identifier,
      told,
      ...(moved ? { state: state.name } : {}),
    });
  }

  /** The item's issue recorded as told, with the item. */
  private async record(item: Item, told: Told): Promise<void> {
    const { ctx } = this;
    await ctx.persistently(`recording ${item.id}'s issue told`, () =>
      ctx.queue.apply(item.id, { kind: 'source_told', told, now: ctx.clock.now() }),
    );
  }

  /** A refused key pauses the night; an issue Linear refuses is told no more; an outage waits. */
  private async fault(item: Item, told: Told, error: unknown): Promise<Stepped> {
    const { ctx } = this;
    const message = ctx.redactor.redact(error instanceof Error ? error.message : String(error));
    const kind = error instanceof LinearRefusal ? error.kind : 'unavailable';
    if (kind === 'auth') {
      ctx.events.error('linear_failed', { item: item.id, error: message });
      await ctx.pause(`ralph: Linear refused: ${message}; fix it, then run "ralph resume"`);
      return { kind: 'halted' };
    }
    if (kind === 'refused' || kind === 'not_found') {
      ctx.events.warn('linear_failed', { item: item.id, error: message });
      await this.record(item, told);
      return { kind: 'moved' };
    }
    const failures = (this.outage?.failures ?? 0) + 1;
    const waitMs = exponentialBackoffMs(failures, FIRST_WAIT_MS, MAX_WAIT_MS);
    const until = ctx.clock.now() + waitMs;
    this.outage = { failures, until };
    ctx.events.warn('linear_failed', {
      item: item.id,
      error: message,
      retryAt: new Date(until).toISOString(),
    });
    return { kind: 'halted', ms: waitMs };
  }
}

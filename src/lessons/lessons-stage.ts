import type { RunnerEvent } from '../events/events.js';
import type { StageContext } from '../stage/context.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { addLessons, gateFailed, type Found } from './gather.js';
import { propose, type Proposed } from './propose.js';
import { changeLessons } from './store.js';
import { rulesHome } from './decide.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The lessons stage: it tends no item. Through the night it gathers what the night teaches (a
 * gate failing the same way on a second item, a landing's conflict, a failed setup, a
 * reviewer's findings the author then fixed); once the night is over, it proposes rules from
 * the new lessons if enough have gathered and none was proposed today.
 */
export const lessons: StageFactory = (ctx) => new Lessons(ctx, false);

/** `ralph lessons propose`: the lessons proposed now, however few, whatever the day's count. */
export const proposeNow: StageFactory = (ctx) => new Lessons(ctx, true);

class Lessons implements StageDeclaration {
  readonly name = 'lessons';
  readonly on: boolean;
  readonly tends = { where: () => false } as const;
  readonly width = 1;
  readonly pauses = false;
  readonly unmoved = 'waiting';
  readonly awaits = 'due';
  /** What the proposal came to, once the stage has ended. */
  proposed: Proposed | undefined;
  private readonly unsubscribe: () => void;
  /** The lessons being written, in the order the night told them. */
  private writes: Promise<void> = Promise.resolve();
  /** The findings a review sent back, by item: a lesson once the author's fix is approved. */
  private readonly sentBack = new Map<string, { text: string; session: string }>();

  constructor(
    private readonly ctx: StageContext,
    private readonly force: boolean,
  ) {
    this.on = force || ctx.workspace.config.lessons.enabled;
    this.unsubscribe =
      this.on && !force ? ctx.events.subscribe((event) => this.heard(event)) : () => true;
  }

  step(): Promise<Stepped> {
    return Promise.resolve({ kind: 'waiting' });
  }

  async ended(): Promise<void> {
    this.unsubscribe();
    await this.writes;
    if (this.ctx.stopped()) return;
    const { ctx } = this;
    try {
      // Rules accepted while another change of the rules' file was on its way: theirs now.
      await rulesHome(ctx.workspace, ctx.queue, ctx.clock.now());
      this.proposed = await propose(ctx, this.force);
    } catch (error) {
      const reason = ctx.redactor.redact(messageOf(error));
      this.proposed = { kind: 'none', why: reason };
      ctx.events.warn('rules_not_proposed', { reason });
      return;
    }
    const { proposed } = this;
    // None due is no news of the night's; `ralph lessons propose` says why.
    if (proposed.kind === 'none') {
      if (this.force) ctx.events.info('rules_not_proposed', { reason: proposed.why });
    } else if (proposed.proposal.failure !== undefined)
      ctx.events.warn('rules_not_proposed', {
        proposal: proposed.proposal.id,
        reason: proposed.proposal.failure,
      });
    else
      ctx.events.info('rules_proposed', {
        proposal: proposed.proposal.id,
        cli: proposed.proposal.cli,
        rules: proposed.proposal.rules,
        dropped: proposed.proposal.dropped.length,
        costUsd: proposed.proposal.costUsd,
      });
  }

  /** An event of the night: a lesson gathered from it, if it is one. */
  private heard(event: RunnerEvent): void {
    const at = event.time;
    const note = (find: () => Promise<Found | undefined> | Found | undefined) =>
      this.write(event.event, () => this.gather(find));
    switch (event.event) {
      case 'land_refused':
        if (event.outcome === 'land_conflict')
          note(() => lesson('landing', `landing:${event.item}:${at}`, event.error, event.item, at));
        return;
      case 'environment_failed':
        note(() => lesson('setup', `setup:${event.item}:${at}`, event.failure, event.item, at));
        return;
      case 'gate_ended':
        if (!event.passed) {
          const { gate, item, session } = event;
          const tail = event.timedOut
            ? 'it timed out'
            : `it exited with ${event.exitCode ?? 'a signal'}`;
          this.write(event.event, () => this.gateFailure({ gate, item, session, tail, at }));
        }
        return;
      case 'reviewed':
        note(() => this.reviewed(event.item, event.session, event.overall, at));
        return;
      default:
        return;
    }
  }

  /** Writes what an event taught after what the events before it taught; a failure is logged. */
  private write(event: string, work: () => Promise<void>): void {
    this.writes = this.writes.then(work).catch((error: unknown) => {
      this.ctx.events.error('stage_failed', {
        stage: this.name,
        item: event,
        error: this.ctx.redactor.redact(messageOf(error)),
      });
    });
  }

  /** A gate failed: a lesson once it has failed on a second item. */
  private gateFailure(failure: Parameters<typeof gateFailed>[1]): Promise<void> {
    return changeLessons(this.ctx.workspace, (state) => {
      const found = gateFailed(state, failure);
      this.told(addLessons(state, found === undefined ? [] : [found]));
      return { state, answer: undefined };
    });
  }

  /** A review's verdict: findings sent back kept; approved after them, they were fixed. */
  private async reviewed(item: string, session: string, overall: string, at: string) {
    if (overall !== 'approve') {
      // The item alone, with what it depends on: not the whole queue.
      const found = (await this.ctx.queue.dependencyClosure([item])).find((i) => i.id === item);
      if (found?.reviewFindings !== undefined)
        this.sentBack.set(item, { text: found.reviewFindings, session });
      return undefined;
    }
    const back = this.sentBack.get(item);
    if (back === undefined) return undefined;
    this.sentBack.delete(item);
    return {
      ...lesson('fixed', `fixed:${item}:${back.session}`, back.text, item, at),
      sessions: [back.session, session],
    };
  }

  private async gather(find: () => Promise<Found | undefined> | Found | undefined): Promise<void> {
    const found = await find();
    if (found === undefined) return;
    await changeLessons(this.ctx.workspace, (state) => {
      this.told(addLessons(state, [found]));
      return { state, answer: undefined };
    });
  }

  private told(added: readonly { id: string; kind: string; items: string[] }[]): void {
    for (const l of added)
      this.ctx.events.info('lesson_gathered', { lesson: l.id, kind: l.kind, items: l.items });
  }
}

const lesson = (
  kind: Found['kind'],
  key: string,
  text: string,
  item: string,
  at: string,
): Found => ({ key, kind, text, items: [item], decisions: [], sessions: [], at });

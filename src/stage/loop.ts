import type { Item } from '../queue/item.js';
import type { StageContext } from './context.js';
import { StageLooks, Unmoved } from './looks.js';
import type { Stage, StageDeclaration, StagePace, Stepped } from './stage.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A stored look that is not a time yet: the item is due now. */
const NOW = -Infinity;

/**
 * The one loop every stage runs on: it reads the items the stage tends, takes those due (their
 * next look is stored with them, so a restarted run waits as this one would), steps them as
 * many at once as the stage allows, and sleeps until the next is due or the queue changes. It
 * keeps the stage's busy, unmoved and unreviewed counts; a step that throws keeps its item
 * waiting, logged, and never ends the run.
 */
export class StageLoop implements Stage {
  private readonly looks = new StageLooks();
  private readonly unmovedItems = new Unmoved();

  constructor(
    private readonly stage: StageDeclaration,
    private readonly ctx: StageContext,
    private readonly onMoved: (item: Item | undefined) => void,
  ) {}

  get name(): string {
    return this.stage.name;
  }

  get busy(): boolean {
    return this.stage.on && (this.looks.busy || this.stage.pending === true);
  }

  changed(): void {
    if (this.stage.on) this.looks.changed();
  }

  get stuck(): number {
    return this.stage.unmoved === 'stuck' ? this.unmovedItems.count : 0;
  }

  get unreviewed(): number {
    return this.stage.unmoved === 'unreviewed' ? this.unmovedItems.count : 0;
  }

  refusesClaims(): Promise<string | undefined> {
    return this.stage.refusesClaims?.() ?? Promise.resolve(undefined);
  }

  async run(over: () => boolean, pace: StagePace): Promise<void> {
    if (!this.stage.on) return this.stage.off?.();
    try {
      while (!this.ctx.stopped()) if ((await this.look(over, pace)) === 'over') return;
    } finally {
      await this.stage.ended?.();
    }
  }

  /** One look at the queue, and the steps and the wait it calls for. */
  private async look(over: () => boolean, pace: StagePace): Promise<'over' | 'again'> {
    const { ctx, stage } = this;
    if (stage.pauses && (await ctx.pauseReason()) !== undefined) {
      await stage.idle?.(true);
      if (over()) return 'over';
      await pace.untilChanged();
      return 'again';
    }
    await stage.beforeLook?.();
    const begun = this.looks.begin();
    const items = await ctx.persistently(`reading the items the ${stage.name} stage tends`, () =>
      this.tended(),
    );
    const now = ctx.clock.now();
    const held = items.filter((item) => stage.holds?.(item) === true);
    const free = items.filter((item) => stage.holds?.(item) !== true);
    const due = this.unmovedItems.due(free, now, (item) => this.dueAt(item));
    this.looks.saw(begun, (stage.awaits === 'all' ? free.length : due.length) + held.length);
    const heldUntil = stage.heldUntil?.();
    if (due.length > 0 && (heldUntil === undefined || heldUntil <= now)) {
      const halted = await this.stepAll(due);
      if (halted === undefined) return 'again';
      if (over()) return 'over';
      await (halted.ms === undefined ? pace.untilChanged() : pace.sleep(halted.ms));
      return 'again';
    }
    if (due.length === 0 && (await stage.idle?.(false)) === 'again') return 'again';
    if (over()) return 'over';
    // A worker's turn that ended since this look began woke nobody: look again, not sleep.
    if (this.looks.changedSinceLook) return 'again';
    await this.rest(free, heldUntil, pace);
    return 'again';
  }

  /** The items the stage tends, as the queue has them now. */
  private async tended(): Promise<Item[]> {
    const { tends } = this.stage;
    const { queue } = this.ctx;
    if ('status' in tends) return tends.order(await queue.inStatus(tends.status));
    return (await queue.list()).filter(tends.where);
  }

  private dueAt(item: Item): number {
    const at = this.stage.dueAt?.(item) ?? Date.parse(item.lookAgain?.at ?? '');
    return Number.isFinite(at) ? at : NOW;
  }

  /**
   * Steps the due items, `width` at a time, under the stage's lock; what halted the look, if
   * anything did (the lock held elsewhere, the world down).
   */
  private async stepAll(due: readonly Item[]): Promise<{ ms?: number } | undefined> {
    const { ctx, stage } = this;
    const release = stage.lock === undefined ? () => Promise.resolve() : await stage.lock();
    if (release === undefined) return { ms: stage.pollMs };
    try {
      for (let at = 0; at < due.length && !ctx.stopped(); at += stage.width) {
        if (at > 0 && stage.pauses && (await ctx.pauseReason()) !== undefined) return undefined;
        const ends = await Promise.all(due.slice(at, at + stage.width).map((i) => this.step(i)));
        const halted = ends.find((end) => end.kind === 'halted');
        if (halted !== undefined) return { ms: halted.ms };
      }
      return undefined;
    } finally {
      await release();
    }
  }

  /** One item's step, counted; a step that throws keeps the item waiting. */
  private async step(item: Item): Promise<Stepped> {
    let stepped: Stepped;
    try {
      stepped = await this.stage.step(item);
    } catch (error) {
      this.ctx.events.error('stage_failed', {
        stage: this.stage.name,
        item: item.id,
        error: this.ctx.redactor.redact(messageOf(error)),
      });
      stepped = { kind: 'kept' };
    }
    if (stepped.kind === 'kept') this.unmovedItems.erredOn(item.id);
    else this.unmovedItems.movedOn(item.id);
    if (stepped.kind === 'moved') this.onMoved(stepped.item);
    return stepped;
  }

  /** Sleeps until the next item is due, the stage may step again, or the queue changes. */
  private async rest(
    waiting: readonly Item[],
    heldUntil: number | undefined,
    pace: StagePace,
  ): Promise<void> {
    const now = this.ctx.clock.now();
    const next = Math.min(heldUntil ?? Infinity, ...waiting.map((item) => this.dueAt(item)));
    const { pollMs } = this.stage;
    const wait = Math.min(next - now, pollMs ?? Infinity);
    await (Number.isFinite(wait) ? pace.sleep(Math.max(0, wait)) : pace.untilChanged());
  }
}

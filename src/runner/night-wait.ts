import type { RunnerContext } from './context.js';
import type { StopControl } from './stop-control.js';

/** What a wait every worker holds for is said as. */
export type NightWaitEvent = 'window_wait' | 'limit_wait' | 'failure_backoff';

/**
 * The wait every worker of the night holds for (a usage limit, a backoff, a window), said
 * visibly (`state/waiting.json` and the log) while it lasts. A wait already under way that
 * lasts as long is joined rather than started again; none claims until it is over.
 */
export class NightWait {
  private waiting: { until: number; done: Promise<void> } | undefined;

  constructor(
    private readonly ctx: RunnerContext,
    private readonly control: StopControl,
  ) {}

  /** The wait under way, if there is one. */
  get current(): Promise<void> | undefined {
    return this.waiting?.done;
  }

  /** Sleeps until `until`, visibly, unless stopped first. */
  async until(until: number, reason: string, event: NightWaitEvent): Promise<void> {
    if (this.waiting !== undefined && this.waiting.until >= until) return this.waiting.done;
    const wait = { until, done: this.visibly(until, reason, event) };
    this.waiting = wait;
    try {
      await wait.done;
    } finally {
      if (this.waiting === wait) this.waiting = undefined;
    }
  }

  private async visibly(until: number, reason: string, event: NightWaitEvent): Promise<void> {
    const { ctx, control } = this;
    const at = new Date(until).toISOString();
    // Only for people to read: a full disk must not stop the wait.
    await ctx.controlFiles.writeWaiting({ until: at, reason, event }).catch(() => undefined);
    ctx.events.warn(event, { until: at, reason });
    try {
      while (control.requested === undefined && ctx.clock.now() < until) {
        await ctx.wait({ ms: until - ctx.clock.now(), signal: control.signal });
      }
    } finally {
      if (this.waiting === undefined || this.waiting.until <= until)
        await ctx.controlFiles.clearWaiting();
    }
  }
}

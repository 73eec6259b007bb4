import { StageLooks } from '../stage/looks.js';
import type { Stage, StageFactory, StagePace } from '../stage/stage.js';
import type { StageContext } from '../stage/context.js';
import { statusIs } from '../queue/item-status.js';
import type { Item } from '../queue/item.js';

/** What an item's issue is told when the item ends. */
export function endComment(item: Item): string {
  const where = [
    item.landedOn === undefined
      ? undefined
      : `landed on \`${item.landedOn}\`${item.landedCommit === undefined ? '' : ` at ${item.landedCommit.slice(0, 12)}`}`,
    item.pullRequest === undefined
      ? undefined
      : `pull request #${item.pullRequest.number}: ${item.pullRequest.url}`,
    item.branch === undefined ? undefined : `branch \`${item.branch}\``,
  ].filter((part) => part !== undefined);
  const how = statusIs(item.status, 'satisfiesDependents')
    ? '**done**'
    : item.status === 'failed'
      ? `**failed** (${item.lastOutcome ?? 'failed'}): ${(item.lastError ?? '').split('\n')[0]?.slice(0, 300)}`
      : '**cancelled** by a person';
  return [
    `ralph worked on this issue as item \`${item.id}\`: ${how}`,
    ...(where.length === 0 ? [] : [`Its work: ${where.join('; ')}.`]),
    `${item.sessions.length} session${item.sessions.length === 1 ? '' : 's'}, $${item.costUsd.toFixed(2)}.`,
  ].join('\n\n');
}

/** An imported issue's item that ended and whose issue has not been told. */
function untold(item: Item): boolean {
  const { source } = item;
  return (
    source?.kind === 'github' &&
    source.number !== undefined &&
    source.closed !== true &&
    source.writtenBackAt === undefined &&
    statusIs(item.status, 'finished')
  );
}

/** The write-back stage, when the workspace asks for it (`import.writeBack`). */
export const writeBack: StageFactory = (ctx) => new WriteBack(ctx);

/**
 * Tells each imported issue its item's end, once (`import.writeBack`). Marked first: of a
 * fleet's runners, only the one whose mark took tells the issue; the comment goes through the
 * outbox, which keeps trying while the forge is away (a crash between the mark and the outbox's
 * write loses that comment, never repeats it).
 */
export class WriteBack implements Stage {
  readonly name = 'write-back';
  readonly stuck = 0;
  private readonly looks = new StageLooks();

  constructor(private readonly ctx: StageContext) {}

  get busy(): boolean {
    return this.ctx.workspace.config.import.writeBack && this.looks.busy;
  }

  changed(): void {
    this.looks.changed();
  }

  /** It holds no claim back. */
  refusesClaims(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  async run(over: () => boolean, pace: StagePace): Promise<void> {
    if (!this.ctx.workspace.config.import.writeBack) return;
    while (!this.ctx.stopped()) {
      const begun = this.looks.begin();
      const items = await this.ctx.persistently('reading the items whose issues to tell', () =>
        this.ctx.queue.list(),
      );
      const ended = items.filter(untold);
      for (const item of ended) await this.tell(item);
      this.looks.saw(begun, 0);
      if (over() && !this.looks.busy) return;
      await pace.untilChanged();
    }
  }

  private async tell(item: Item): Promise<void> {
    const { source } = item;
    if (source?.number === undefined) return;
    const now = this.ctx.clock.now();
    const marked = await this.ctx.persistently(`marking ${item.id}'s issue told`, () =>
      this.ctx.queue.apply(item.id, { kind: 'written_back', now }),
    );
    if (marked.kind === 'refused') return;
    this.ctx.post(
      `writeback-${item.id}-${item.attempts}-${item.sessions.length}-${item.status}`,
      {
        events: ['item_ended'],
        title: `${item.id} ${item.status}`,
        text: this.ctx.redactor.redact(endComment(marked.item)),
        at: new Date(now).toISOString(),
        data: { item: item.id, status: item.status },
      },
      [{ kind: 'issue', repo: source.ref, number: source.number }],
    );
  }
}

import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
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
    : statusIs(item.status, 'failure')
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
class WriteBack implements StageDeclaration {
  readonly name = 'write-back';
  readonly tends = { where: untold };
  readonly width = 1;
  readonly pauses = false;
  readonly unmoved = 'waiting';
  readonly awaits = 'due';

  constructor(private readonly ctx: StageContext) {}

  get on(): boolean {
    return this.ctx.workspace.config.import.writeBack;
  }

  async step(item: Item): Promise<Stepped> {
    await this.tell(item);
    return { kind: 'waiting' };
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

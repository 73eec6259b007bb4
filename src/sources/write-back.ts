import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import type { StageContext } from '../stage/context.js';
import { statusIs } from '../queue/item-status.js';
import { isIssueSource, type IssueSource, type Item } from '../queue/item.js';
import { endText, startText } from './issue-text.js';

/** An imported issue's item that started and whose issue has not been told so. */
const startUntold = (item: Item, source: IssueSource) =>
  source.startToldAt === undefined && (item.attempts > 0 || statusIs(item.status, 'finished'));

/** An imported issue's item that ended and whose issue has not been told. */
const endUntold = (item: Item, source: IssueSource) =>
  source.writtenBackAt === undefined && statusIs(item.status, 'finished');

/** An imported issue's item with news its issue has not been told. */
function untold(item: Item): boolean {
  const { source } = item;
  return (
    isIssueSource(source) &&
    source.number !== undefined &&
    source.closed !== true &&
    (startUntold(item, source) || endUntold(item, source))
  );
}

/** The write-back stage, when the workspace asks for it (`import.writeBack`). */
export const writeBack: StageFactory = (ctx) => new WriteBack(ctx);

/**
 * Tells each imported issue (GitHub's, GitLab's) its item's start and its end, once each
 * (`import.writeBack`). Marked first: of a fleet's runners, only the one whose mark took tells the
 * issue; the comment goes through the outbox, which keeps trying while the forge is away, and
 * carries the outbox entry's id, so that a runner killed after making it, before recording it,
 * does not make it again (a crash between the mark and the outbox's write loses that comment).
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
    const { source } = item;
    if (!isIssueSource(source) || source.number === undefined) return { kind: 'waiting' };
    if (startUntold(item, source)) await this.tell(item, source, source.number, 'start');
    if (endUntold(item, source)) await this.tell(item, source, source.number, 'end');
    return { kind: 'waiting' };
  }

  private async tell(
    item: Item,
    source: IssueSource,
    number: number,
    what: 'start' | 'end',
  ): Promise<void> {
    const now = this.ctx.clock.now();
    const marked = await this.ctx.persistently(`marking ${item.id}'s issue told`, () =>
      this.ctx.queue.apply(item.id, {
        kind: what === 'start' ? 'start_told' : 'written_back',
        now,
      }),
    );
    if (marked.kind === 'refused') return;
    const id =
      what === 'start'
        ? `writeback-${item.id}-started`
        : `writeback-${item.id}-${item.attempts}-${item.sessions.length}-${item.status}`;
    this.ctx.post(
      id,
      {
        events: [what === 'start' ? 'item_started' : 'item_ended'],
        title: `${item.id} ${what === 'start' ? 'started' : item.status}`,
        text: this.ctx.redactor.redact(
          what === 'start' ? startText(marked.item) : endText(marked.item),
        ),
        at: new Date(now).toISOString(),
        data: { item: item.id, status: item.status },
      },
      [{ kind: 'issue', forge: source.kind, repo: source.ref, number }],
    );
  }
}

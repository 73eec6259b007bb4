import type { Forge } from '../forge/forge.js';
import { openIssues } from '../forge/open.js';
import { DeliveryError, send } from '../notify/channels.js';
import { targetName, type NotifyMessage, type Target } from '../notify/message.js';
import { entryId, Outbox } from '../notify/outbox.js';
import { Postman } from '../notify/postman.js';
import { statusIs } from '../queue/item-status.js';
import type { Item } from '../queue/item.js';
import { serialized } from '../lib/serialized.js';
import type { RunnerContext } from './context.js';
import type { EventName } from '../events/events.js';
import { NightNotes } from '../notify/messages.js';

/** One try of a notification: a receiver that takes longer is let go, and tried again later. */
export const TRY_TIMEOUT_MS = 5_000;
/** How long a stopping runner gives its notifications (the night's digest) to go out. */
const FLUSH_GRACE_MS = 2 * TRY_TIMEOUT_MS;

/** Events after which an item may have ended, and its issue be told. */
const ENDINGS: ReadonlySet<EventName> = new Set([
  'run_started',
  'session_ended',
  'landed',
  'land_refused',
  'checks_failed',
  'pull_request_merged',
  'pull_request_closed',
  'item_stopped',
  'run_finished',
]);

/** What an item's issue is told when the item ends. */
function endComment(item: Item): string {
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

/** Posts a message to its targets, through the outbox. */
type Post = (id: string, message: NotifyMessage, targets: readonly Target[]) => void;

/**
 * Tells each imported issue its item's end, once (`import.writeBack`). Marked first: of a
 * fleet's runners, only the one whose mark took tells the issue (a crash between the mark and
 * the outbox's write loses that comment, never repeats it).
 */
async function writeBackEnded(ctx: RunnerContext, post: Post): Promise<void> {
  if (!ctx.workspace.config.import.writeBack) return;
  for (const item of await ctx.queue.list()) {
    const source = item.source;
    if (
      source?.kind !== 'github' ||
      source.number === undefined ||
      source.closed === true ||
      source.writtenBackAt !== undefined ||
      !statusIs(item.status, 'finished')
    )
      continue;
    const now = ctx.clock.now();
    const marked = await ctx.queue.apply(item.id, { kind: 'written_back', now });
    if (marked.kind === 'refused') continue;
    post(
      `writeback-${item.id}-${item.attempts}-${item.sessions.length}-${item.status}`,
      {
        events: ['item_ended'],
        title: `${item.id} ${item.status}`,
        text: ctx.redactor.redact(endComment(marked.item)),
        at: new Date(now).toISOString(),
        data: { item: item.id, status: item.status },
      },
      [{ kind: 'issue', repo: source.ref, number: source.number }],
    );
  }
}

/**
 * The night told as it happens: each message written to the outbox, then sent to the
 * notifiers whose events it answers (`notify`), in the background; each imported issue told
 * when its item ends (`import.writeBack`). Started with the runner, stopped after its night.
 */
export function startNotifications(ctx: RunnerContext): { stop(): Promise<void> } {
  const { workspace, events } = ctx;
  const { notify } = workspace.config;
  const forges = new Map<string, Promise<Forge>>();
  const forgeOf = (repo: string) => {
    let forge = forges.get(repo);
    if (forge === undefined) {
      forge = openIssues(workspace.config.forge, repo, ctx.parentEnv);
      forges.set(repo, forge);
      forge.catch(() => forges.delete(repo));
    }
    return forge;
  };
  const postman = new Postman({
    outbox: new Outbox(workspace.paths.outbox),
    now: () => ctx.clock.now(),
    tryTimeoutMs: TRY_TIMEOUT_MS,
    deliver: async (target, message, id, signal) => {
      if (target.kind === 'issue') {
        const comment = (await forgeOf(target.repo)).comment(target.number, message.text);
        const aborted = new Promise<never>((_, reject) =>
          signal.addEventListener('abort', () => reject(new DeliveryError('no answer in time'))),
        );
        return Promise.race([comment, aborted]);
      }
      const notifier = notify[target.index];
      if (notifier?.kind !== target.notifier)
        throw new DeliveryError(
          `ralph.config.json's notify[${target.index}] is no longer a ${target.notifier} notifier`,
        );
      return send(notifier, message, {
        env: ctx.parentEnv,
        signal,
        cwd: workspace.root,
        timeoutMs: TRY_TIMEOUT_MS,
        id,
      });
    },
    told: (outcome, entry, delivery) => {
      const fields = {
        id: entry.id,
        target: targetName(delivery.target),
        about: entry.message.events[0] ?? '',
      };
      if (outcome === 'sent') events.info('notify_sent', fields);
      else
        events.warn('notify_failed', {
          ...fields,
          error: ctx.redactor.redact(delivery.lastError ?? ''),
          ...(delivery.nextAt === undefined ? {} : { retryAt: delivery.nextAt }),
        });
    },
  });
  let sequence = 0;
  const posting = new Set<Promise<void>>();
  const post: Post = (id, message, targets) => {
    const done = postman
      .post(id, message, targets)
      .catch((error: unknown) =>
        events.error('notify_unwritten', {
          about: message.events[0] ?? '',
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      .finally(() => posting.delete(done));
    posting.add(done);
  };
  const notifiersOf = (message: NotifyMessage): Target[] =>
    notify.flatMap((notifier, index) =>
      notifier.events === undefined ||
      notifier.events.some((e) => (message.events as string[]).includes(e))
        ? [{ kind: 'notifier' as const, index, notifier: notifier.kind }]
        : [],
    );

  const writeBack = serialized(() => writeBackEnded(ctx, post));

  const notes = new NightNotes(workspace.config.rig || workspace.root);
  const unsubscribe = events.subscribe((event) => {
    const message = notify.length === 0 ? undefined : notes.messageOf(event);
    if (message !== undefined) {
      const targets = notifiersOf(message);
      const item = typeof message.data.item === 'string' ? `-${message.data.item}` : '';
      if (targets.length > 0)
        post(
          entryId(Date.parse(message.at), sequence++, `${message.events[0]}${item}`),
          message,
          targets,
        );
    }
    if (ENDINGS.has(event.event)) writeBack.kick();
  });
  // What an earlier runner could not deliver goes first.
  postman.kick();
  return {
    stop: async () => {
      unsubscribe();
      await writeBack.idle();
      await Promise.all(posting);
      await postman.stop(FLUSH_GRACE_MS);
    },
  };
}

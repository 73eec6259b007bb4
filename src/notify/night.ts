import type { NotifierConfig } from './config-schema.js';
import type { RunEvents } from '../events/events.js';
import type { Clock } from '../lib/clock.js';
import type { Redactor } from '../lib/redact.js';
import { DeliveryError, send } from './channels.js';
import { targetName, type IssueRecipient, type NotifyMessage, type Recipient } from './message.js';
import { NightNotes } from './messages.js';
import { entryId, Outbox } from './outbox.js';
import { Postman } from './postman.js';

/** One try of a notification: a receiver that takes longer is let go, and tried again later. */
export const TRY_TIMEOUT_MS = 5_000;
/** How long a stopping runner gives its notifications (the night's digest) to go out. */
const FLUSH_GRACE_MS = 2 * TRY_TIMEOUT_MS;

/** Posts a message to its targets through the outbox: `id` names it there, once. */
export type Post = (id: string, message: NotifyMessage, targets: readonly Recipient[]) => void;

/** What the night's notifications are given of the run. */
export interface NotifyHost {
  readonly notify: readonly NotifierConfig[];
  /** The outbox file, under state/. */
  readonly outbox: string;
  /** The workspace's name in messages (its rig, else its root). */
  readonly name: string;
  /** Where a command notifier runs. */
  readonly root: string;
  readonly events: RunEvents;
  readonly clock: Clock;
  readonly redactor: Redactor;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Comments on an issue (the forge's issues port), for messages to an issue, once: `mark` (the
   * message's id) is left in the comment, and a comment with it is not made again.
   */
  commentOnIssue(issue: IssueRecipient, text: string, mark: string): Promise<void>;
}

export interface NightNotifications {
  /** Posts a message of the run's own (an issue told its item's end). */
  readonly post: Post;
  /** Stops telling, and gives what is posted a little while to go out. */
  stop(): Promise<void>;
}

/**
 * The night told as it happens: each message written to the outbox, then sent to the
 * notifiers whose events it answers (`notify`), in the background. Started with the runner,
 * stopped after its night.
 */
export function startNotifications(host: NotifyHost): NightNotifications {
  const { notify, events } = host;
  const postman = new Postman({
    outbox: new Outbox(host.outbox),
    now: () => host.clock.now(),
    tryTimeoutMs: TRY_TIMEOUT_MS,
    deliver: async (target, message, id, signal) => {
      if (target.kind === 'issue') {
        const comment = host.commentOnIssue(target, message.text, id);
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
        env: host.env,
        signal,
        cwd: host.root,
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
          error: host.redactor.redact(delivery.lastError ?? ''),
          ...(delivery.nextAt === undefined ? {} : { retryAt: delivery.nextAt }),
        });
    },
  });
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
  const notifiersOf = (message: NotifyMessage): Recipient[] =>
    notify.flatMap((notifier, index) =>
      notifier.events === undefined ||
      notifier.events.some((e) => (message.events as string[]).includes(e))
        ? [{ kind: 'notifier' as const, index, notifier: notifier.kind }]
        : [],
    );
  let sequence = 0;
  const notes = new NightNotes(host.name);
  const unsubscribe =
    notify.length === 0
      ? () => undefined
      : events.subscribe((event) => {
          const message = notes.messageOf(event);
          if (message === undefined) return;
          const targets = notifiersOf(message);
          const item = typeof message.data.item === 'string' ? `-${message.data.item}` : '';
          if (targets.length > 0)
            post(
              entryId(Date.parse(message.at), sequence++, `${message.events[0]}${item}`),
              message,
              targets,
            );
        });
  // What an earlier runner could not deliver goes first.
  postman.kick();
  return {
    post,
    stop: async () => {
      unsubscribe();
      await Promise.all(posting);
      await postman.stop(FLUSH_GRACE_MS);
    },
  };
}

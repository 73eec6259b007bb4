import type { NotifyEvent } from '../config/notify-events.js';

export type MessageKind = NotifyEvent | 'test' | 'item_started' | 'item_ended';

/** What a person is told: one happening, in a title and a few lines, with its data. */
export interface NotifyMessage {
  /**
   * The events it answers to (a stop by a signal is also the night's end), its own first:
   * `test` for `ralph notify test`, `item_started` and `item_ended` for a write-back to an issue.
   */
  events: MessageKind[];
  title: string;
  text: string;
  at: string;
  /** The facts behind it, for a webhook's receiver (item ids, costs, reset times). */
  data: Record<string, unknown>;
}

/** An issue to comment on: its forge (GitHub when unsaid), repository and number. */
export interface IssueRecipient {
  kind: 'issue';
  forge?: 'github' | 'gitlab';
  repo: string;
  number: number;
}

/** Who a message goes to: a notifier of `notify` (by its place), or an issue to comment on. */
export type Recipient = { kind: 'notifier'; index: number; notifier: string } | IssueRecipient;

export const targetName = (target: Recipient): string =>
  target.kind === 'notifier'
    ? `notify[${target.index}] (${target.notifier})`
    : `a comment on ${target.forge === 'gitlab' ? 'GitLab ' : ''}${target.repo}#${target.number}`;

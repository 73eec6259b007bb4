import type { NotifyEvent } from '../config/notify-events.js';
import { formatDuration } from '../lib/duration.js';
import type { NotifyMessage } from './message.js';
import type { RunnerEvent } from '../events/events.js';
import { statusIs, type ItemStatus, type StatusFlag } from '../queue/item-status.js';

const dollars = (usd: number) => `$${usd.toFixed(2)}`;

/**
 * What a person is told of a night, event by event: the runner's events in, one message per
 * happening out (a pause said once for its reason, a usage limit once for its reset), and at
 * the end a digest of what the night did.
 */
export class NightNotes {
  private startedAt: string | undefined;
  private readonly failed = new Map<string, string>();
  private landed = 0;
  private pullRequests = 0;
  /** Reviews: approvals and changes asked for, and the items left unreviewed (by id, why). */
  private readonly reviews = { approved: 0, changes: 0, unreviewed: new Map<string, string>() };
  private readonly limitsSaid = new Set<string>();

  /** `where`: the workspace as people know it (its rig name, or its directory). */
  constructor(private readonly where: string) {}

  private message(
    events: NotifyMessage['events'],
    at: string,
    title: string,
    lines: readonly string[],
    data: Record<string, unknown>,
  ): NotifyMessage {
    return { events, title: `ralph (${this.where}): ${title}`, text: lines.join('\n'), at, data };
  }

  private itemFailed(at: string, item: string, why: string, data: Record<string, unknown>) {
    this.failed.set(item, why);
    return this.message(['item_failed'], at, `${item} failed`, [why], { item, ...data });
  }

  /** The message an event calls for, if any. */
  messageOf(event: RunnerEvent): NotifyMessage | undefined {
    const at = event.time;
    switch (event.event) {
      case 'run_started':
        this.startedAt = at;
        return undefined;
      case 'stale_lock_reclaimed': {
        const holder = event.holder as { pid?: number; startedAt?: string } | 'unknown';
        const who =
          holder === 'unknown' || typeof holder !== 'object'
            ? 'The last runner'
            : `The last runner (pid ${holder.pid}, started ${holder.startedAt})`;
        return this.message(
          ['runner_stopped'],
          at,
          'the last runner died',
          [
            `${who} ended without stopping: a crash, a kill -9 or the machine going down. This runner takes over and puts the items it ran back in line.`,
          ],
          { holder },
        );
      }
      case 'paused':
        return this.message(
          ['night_paused'],
          at,
          'the night is paused',
          [event.reason, 'Nothing new starts until the pause is lifted (ralph resume).'],
          { reason: event.reason },
        );
      case 'limit_wait': {
        if (this.limitsSaid.has(event.until)) return undefined;
        this.limitsSaid.add(event.until);
        return this.message(
          ['night_paused'],
          at,
          `a usage limit: waiting until ${event.until}`,
          [event.reason, `The night goes on by itself at ${event.until}.`],
          { reason: event.reason, until: event.until },
        );
      }
      case 'run_limit_reached':
        if (event.cost !== true) return undefined;
        return this.message(
          ['cost_cap'],
          at,
          'a cost cap is reached',
          [event.reason, 'No new item starts.'],
          {
            reason: event.reason,
          },
        );
      case 'session_ended':
        if (is(event.itemStatus, 'failure'))
          return this.itemFailed(at, event.item, `${event.outcome}: ${event.message}`, {
            outcome: event.outcome,
            session: event.session,
          });
        if (is(event.itemStatus, 'asksPerson'))
          return this.message(
            ['needs_input'],
            at,
            `${event.item} asks you something`,
            [event.question ?? event.message, `Answer with: ralph say ${event.item} "…"`],
            { item: event.item, session: event.session },
          );
        return undefined;
      case 'land_refused':
        if (!is(event.itemStatus, 'failure')) return undefined;
        return this.itemFailed(
          at,
          event.item,
          `${event.outcome} on ${event.target}: ${event.error}`,
          {
            outcome: event.outcome,
          },
        );
      case 'checks_failed':
        if (!is(event.itemStatus, 'failure')) return undefined;
        return this.itemFailed(at, event.item, `${event.outcome}: ${event.error}`, {
          outcome: event.outcome,
        });
      case 'reviewed':
        this.reviews.unreviewed.delete(event.item);
        if (event.overall === 'approve') this.reviews.approved++;
        else this.reviews.changes++;
        if (!is(event.itemStatus, 'asksPerson')) return undefined;
        return this.message(
          ['needs_input'],
          at,
          `${event.item} waits for you: its reviewer keeps asking for changes`,
          [
            `Its reviewer (${event.cli}) asked for changes again; see "ralph show ${event.item}".`,
            `Send it back with: ralph say ${event.item} "…"; or retry or cancel it.`,
          ],
          { item: event.item, session: event.session },
        );
      case 'review_failed':
        this.reviews.unreviewed.set(event.item, event.reason);
        return undefined;
      case 'landed':
        if (!event.already) this.landed++;
        return undefined;
      case 'pull_request_opened':
        this.pullRequests++;
        return undefined;
      case 'run_finished':
        return this.digest(event);
      default:
        return undefined;
    }
  }

  /** The night's reviews in a line, and each item left unreviewed (none reviewed: nothing). */
  private reviewLines(): string[] {
    const { approved, changes, unreviewed } = this.reviews;
    if (approved + changes + unreviewed.size === 0) return [];
    return [
      `Reviews: ${approved} approved, ${changes} sent back, ${unreviewed.size} unreviewed.`,
      ...[...unreviewed].map(([id, why]) => `- ${id} unreviewed: ${why.slice(0, 200)}`),
    ];
  }

  /** The night in a few lines: what was done, failed, landed, opened, spent, and how long. */
  private digest(event: Extract<RunnerEvent, { event: 'run_finished' }>): NotifyMessage {
    const seconds =
      this.startedAt === undefined
        ? undefined
        : (Date.parse(event.time) - Date.parse(this.startedAt)) / 1000;
    const why =
      event.stoppedBy !== undefined
        ? `stopped by ${event.stoppedBy}`
        : (event.paused ??
          event.ended ??
          (event.limited === undefined ? undefined : event.limited.message));
    const events: NotifyEvent[] =
      event.stoppedBy === undefined ? ['night_ended'] : ['night_ended', 'runner_stopped'];
    const failed = [...this.failed].map(
      ([id, reason]) => `- ${id}: ${reason.split('\n')[0]?.slice(0, 200)}`,
    );
    return this.message(
      events,
      event.time,
      `the night ended${why === undefined ? '' : ` (${why.split('\n')[0]})`}`,
      [
        `${event.succeeded} of ${event.sessions} session${event.sessions === 1 ? '' : 's'} succeeded; ${this.failed.size} item${this.failed.size === 1 ? '' : 's'} failed; ${this.landed} landed; ${this.pullRequests} pull request${this.pullRequests === 1 ? '' : 's'} opened.`,
        `Spent ${dollars(event.costUsd)}${seconds === undefined ? '' : ` in ${formatDuration(seconds)}`}.`,
        ...this.reviewLines(),
        ...(failed.length === 0 ? [] : ['Failed:', ...failed]),
      ],
      {
        sessions: event.sessions,
        succeeded: event.succeeded,
        failed: [...this.failed.keys()],
        landed: this.landed,
        pullRequests: this.pullRequests,
        costUsd: event.costUsd,
        seconds,
        stoppedBy: event.stoppedBy,
        ended: event.ended,
        paused: event.paused,
      },
    );
  }
}

/** Whether an event's item status (when it tells one) has the trait `name`. */
function is(status: ItemStatus | undefined, name: StatusFlag): boolean {
  return status !== undefined && statusIs(status, name);
}

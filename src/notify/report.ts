import type { Outbox, OutboxEntry } from './outbox.js';
import { compareText } from '../lib/text.js';
import { targetName } from './message.js';

/** The notifications of a span: how many went out, wait, were given up, and the latest. */
export interface NotificationsReport {
  sent: number;
  waiting: number;
  givenUp: number;
  /** Messages by their event. */
  byEvent: Record<string, number>;
  latest: {
    at: string;
    event: string;
    title: string;
    targets: { target: string; sentAt?: string; error?: string; retryAt?: string }[];
  }[];
}

/** How many of the latest messages a report lists. */
const LATEST = 20;

/**
 * What the outbox holds of messages made since `since` (`sent/`, and those still waiting);
 * undefined when there are none.
 */
export function notificationsReport(
  sent: readonly OutboxEntry[],
  waiting: readonly OutboxEntry[],
  since?: number,
): NotificationsReport | undefined {
  const inSpan = (e: OutboxEntry) => since === undefined || Date.parse(e.createdAt) >= since;
  const done = sent.filter(inSpan);
  const open = waiting.filter(inSpan);
  if (done.length === 0 && open.length === 0) return undefined;
  const all = [...done, ...open].sort((a, b) => compareText(a.createdAt, b.createdAt));
  const byEvent: Record<string, number> = {};
  for (const entry of all) {
    const event = entry.message.events[0] ?? 'test';
    byEvent[event] = (byEvent[event] ?? 0) + 1;
  }
  const over = (e: OutboxEntry) => e.deliveries.every((d) => d.sentAt !== undefined);
  return {
    sent: done.filter(over).length,
    waiting: open.length,
    givenUp: done.filter((e) => !over(e)).length,
    byEvent,
    latest: all.slice(-LATEST).map((entry) => ({
      at: entry.message.at,
      event: entry.message.events[0] ?? 'test',
      title: entry.message.title,
      targets: entry.deliveries.map((d) => ({
        target: targetName(d.target),
        ...(d.sentAt === undefined ? {} : { sentAt: d.sentAt }),
        ...(d.sentAt === undefined && d.lastError !== undefined ? { error: d.lastError } : {}),
        ...(d.sentAt === undefined && d.nextAt !== undefined ? { retryAt: d.nextAt } : {}),
      })),
    })),
  };
}

/** The notifications report of a workspace's outbox, since `since`. */
export async function outboxReport(
  outbox: Outbox,
  since?: number,
): Promise<NotificationsReport | undefined> {
  return notificationsReport(await outbox.sent(), await outbox.waiting(), since);
}

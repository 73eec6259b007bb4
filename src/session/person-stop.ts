import fsp from 'node:fs/promises';
import type { SupervisedEnd, Supervision } from '../agent/supervise.js';
import type { SessionRecord } from '../archive/record.js';
import { watchNames } from '../lib/watch.js';
import type { Item } from '../queue/item.js';
import { messagesSinceClaim } from '../queue/transitions.js';
import type { SessionHostContext } from './host.js';
import type { PreparedSession } from './prepare.js';

// A person's `ralph stop` of one item while its session runs (or `ralph say` to it): a message
// given on the CLI's stdin mid-turn, or the session stopped, then the item parked, cancelled or
// back in line with the message.

/** The session a person may stop or message, and where the messages given to it are kept. */
export interface PersonStopped {
  item: Item;
  sessionId: string;
  prepared: PreparedSession;
  /** Messages given to it live: kept in its record. */
  given(messages: NonNullable<SessionRecord['messages']>): Promise<void>;
}

/**
 * The session's end, a person's request to stop this item alone (`ralph stop`) watched, and
 * looked for now, while it runs.
 */
export async function answeringStops(
  ctx: SessionHostContext,
  session: PersonStopped,
  supervision: Supervision,
  unsubscribe: () => void,
): Promise<SupervisedEnd> {
  const itemId = session.item.id;
  const stopWatch = ctx.controlFiles.stopWatch(itemId);
  await fsp.mkdir(stopWatch.dir, { recursive: true });
  let answering = Promise.resolve();
  const stopIfAsked = () => {
    if (!ctx.controlFiles.stopRequested(itemId)) return;
    // One at a time: a request's file is seen by several watch events.
    answering = answering
      .then(() => answerStopRequest(ctx, session, supervision))
      // Whatever went wrong giving it a message, the request is carried out by the stop.
      .catch(() => supervision.stop('requested'));
  };
  const watcher = watchNames(stopWatch.dir, [stopWatch.name], stopIfAsked);
  stopIfAsked();
  return supervision.done.finally(() => {
    unsubscribe();
    watcher?.close();
  });
}

/**
 * A person's request to stop this item, or to give it a message: a message goes to a CLI that
 * reads them on its stdin while its turn runs; otherwise (or once its turn has ended) the
 * session is stopped, to resume its conversation with the message.
 */
async function answerStopRequest(
  ctx: SessionHostContext,
  session: PersonStopped,
  supervision: Supervision,
): Promise<void> {
  const { item, sessionId, prepared } = session;
  const request = await ctx.controlFiles.stopRequest(item.id);
  if (request === undefined) return;
  const { messageLine } = prepared.cli;
  if (request.message !== true || messageLine === undefined) {
    supervision.stop('requested');
    return;
  }
  const now = (await ctx.queue.dependencyClosure([item.id])).find((i) => i.id === item.id);
  const news = now === undefined ? [] : messagesSinceClaim(now);
  if (!news.every((m) => supervision.tell(messageLine(m.text)))) {
    // Its turn ended meanwhile (or its input closed part way): it resumes with the messages.
    supervision.stop('requested');
    return;
  }
  const ats = news.map((m) => m.at);
  await ctx.persistently(`recording the messages given to ${item.id}`, () =>
    ctx.queue.apply(item.id, { kind: 'messages_given_live', session: sessionId, ats }),
  );
  await session.given(news.map(({ from, at, text }) => ({ from, at, text, live: true })));
  for (const m of news)
    ctx.events.info('message_given', { item: item.id, session: sessionId, from: m.from });
  await ctx.controlFiles.clearStopRequest(item.id);
}

/**
 * What a person's stop of this item asked for, once its session has ended: the item back in
 * line (settled so already), or cancelled; the request is then removed (what `ralph stop`
 * waits for).
 */
export async function carryOutStop(
  ctx: SessionHostContext,
  item: Item,
  settled: Item | undefined,
  sessionId: string,
): Promise<Item | undefined> {
  const request = await ctx.controlFiles.stopRequest(item.id);
  let after = settled;
  if (request?.cancel === true || request?.park === true) {
    const stopped = await ctx.persistently(
      `${request.cancel ? 'cancelling' : 'parking'} ${item.id}`,
      () =>
        ctx.queue.apply(item.id, {
          kind: 'stopped',
          then: request.cancel ? 'cancel' : 'park',
          now: ctx.clock.now(),
        }),
    );
    if (stopped.kind === 'applied') after = stopped.item;
  }
  await ctx.controlFiles.clearStopRequest(item.id);
  ctx.events.info('item_stopped', {
    item: item.id,
    session: sessionId,
    by: request?.by ?? 'unknown',
    itemStatus: after?.status ?? 'pending',
  });
  return after;
}

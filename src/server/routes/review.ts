import { Hono, type Context } from 'hono';
import { liveRunner } from '../../control/runner-lock.js';
import { NotFoundError } from '../../lib/errors.js';
import { DECISION_VERBS, type DecisionKind } from '../../queue/decision-kinds.js';
import { carryLedger, decide, decidedText, parseUntil } from '../../workspace/decide.js';
import { reviewInbox } from '../../workspace/review-inbox.js';
import { decisionsOf, reviewPage } from '../../workspace/review-page.js';
import { addressOf } from '../action-log.js';
import type { Decided, Review, ReviewPage } from '../api-types.js';
import type { ServerContext } from '../context.js';
import { indexOf } from '../index-cache.js';
import { body, query } from '../request.js';
import { AcceptRequest, DeferRequest, RejectRequest, ReviewQuery } from '../schemas.js';
import { idOf } from './items.js';

/**
 * `/review` and an item's decisions: the inbox and an item's review page, and accept, reject and
 * defer, each written to the ledger as `ralph accept|reject|defer` writes it. What a decision
 * does to the world is carried out by the running night, or by the next `ralph run`.
 */
export function reviewRoutes(ctx: ServerContext): Hono {
  const app = new Hono();
  const itemsNow = async () => {
    await carryLedger(ctx.workspace, ctx.queue);
    return ctx.queue.list();
  };

  app.get('/review', async (c) => {
    const { all } = query(c, ReviewQuery);
    const [items, { entries }] = await Promise.all([itemsNow(), indexOf(ctx)]);
    const now = all === '1' ? Number.POSITIVE_INFINITY : Date.now();
    const rows = reviewInbox(items, entries, ctx.workspace.config.review.sensitive, now);
    const answer: Review = {
      items: rows.map(({ item, ...row }) => ({
        id: item.id,
        title: item.title,
        status: item.status,
        costUsd: item.costUsd,
        decisions: decisionsOf(item, now),
        ...row,
      })),
    };
    return c.json(ctx.redactor.redactValue(answer));
  });

  app.get('/items/:id/review', async (c) => {
    const id = idOf(c.req.param());
    const [items, { entries }] = await Promise.all([itemsNow(), indexOf(ctx)]);
    const item = items.find((i) => i.id === id);
    if (item === undefined) throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
    const page: ReviewPage = await reviewPage(ctx.workspace, item, entries, Date.now());
    return c.json(ctx.redactor.redactValue(page));
  });

  const decisionRoute = (
    kind: DecisionKind,
    asked: (
      c: Context,
    ) => Promise<{ note?: string; cancel?: boolean; until?: number; reviewMs?: number }>,
  ) =>
    app.post(`/items/:id/${DECISION_VERBS[kind]}`, async (c) => {
      const id = idOf(c.req.param());
      const { note, cancel, until, reviewMs } = await asked(c);
      const { entries } = await indexOf(ctx);
      const then = cancel === true ? 'cancel' : 'retry';
      const by = `dashboard (${addressOf(c)})`;
      const { item, line } = await decide(
        ctx.workspace,
        ctx.queue,
        { itemId: id, kind, by, note, then, until, reviewMs },
        entries,
        Date.now(),
      );
      ctx.logAction(c, DECISION_VERBS[kind], [id]);
      const live = (await liveRunner(ctx.workspace.paths.runnerLock)) !== undefined;
      const answer: Decided = {
        item: id,
        decision: kind,
        id: line.id,
        status: item.status,
        text: decidedText(kind, item, live),
      };
      return c.json(ctx.redactor.redactValue(answer));
    });
  decisionRoute('accepted', (c) => body(c, AcceptRequest));
  decisionRoute('rejected', (c) => body(c, RejectRequest));
  decisionRoute('deferred', async (c) => {
    const { until, reviewMs } = await body(c, DeferRequest);
    return { until: parseUntil(until, Date.now()), reviewMs };
  });
  return app;
}

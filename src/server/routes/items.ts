import { statusIs } from '../../queue/item-status.js';
import { git } from '../../git/git.js';
import { Hono } from 'hono';
import { InputError, NotFoundError } from '../../lib/errors.js';
import { formatIssues } from '../../lib/validation.js';
import type * as z from '../../lib/zod.js';
import { unrunnableItems } from '../../queue/dependencies.js';
import type { Item } from '../../queue/item.js';
import { blockedReason } from '../../queue/select.js';
import {
  addItem,
  checkBody,
  checkTitle,
  idFromTitle,
  scheduleStart,
  validateItem,
} from '../../workspace/admission.js';
import { branchOfItem, dropWorktrees } from '../../workspace/branches.js';
import type { ServerContext } from '../context.js';
import type {
  Diff,
  ItemDetail,
  Items,
  ItemsChanged,
  ItemsRemoved,
  ListedItem,
  MessageSaid,
} from '../api-types.js';
import { body, query } from '../request.js';
import {
  ItemParams,
  ItemsQuery,
  MessageRequest,
  NewItemSchema,
  ForceQuery,
  StopQuery,
} from '../schemas.js';
import { saidText, sayToItem } from '../../workspace/say.js';
import { addressOf } from '../action-log.js';
import { liveRunner } from '../../control/runner-lock.js';
import { notStoppedInTime, stopItem } from '../../workspace/stop.js';

const fieldName = (field: string) => field;

/** A new item from a request, with the defaults and checks of `ralph add`. */
function newItem(input: z.output<typeof NewItemSchema>, now: number): Item {
  const { replace: _replace, title, body: text, notBefore, schedule, ...fields } = input;
  const stamp = new Date(now).toISOString();
  const start = notBefore === undefined ? undefined : Date.parse(notBefore);
  return validateItem(
    {
      id: idFromTitle(title),
      ...fields,
      title: checkTitle(title),
      body: text === undefined ? undefined : checkBody(text),
      schedule,
      notBefore:
        start === undefined || Number.isNaN(start)
          ? (notBefore ?? (schedule === undefined ? undefined : scheduleStart(schedule, now)))
          : new Date(start).toISOString(),
      createdAt: stamp,
      updatedAt: stamp,
    },
    'the new item',
    fieldName,
  );
}

/** An item as lists show it: without its task text, with why it waits. */
function listed(item: Item, waiting: string | undefined): ListedItem {
  const { body: _body, ...rest } = item;
  return waiting === undefined ? rest : { ...rest, waiting };
}

/** The most of a branch's diff the item page shows (`ralph diff` shows it whole). */
const MAX_DIFF_CHARS = 512 * 1024;

/** The id of a route's item, checked. */
export function idOf(params: unknown): string {
  const parsed = ItemParams.safeParse(params);
  if (!parsed.success) throw new InputError(formatIssues('the item id', parsed.error), 'id');
  return parsed.data.id;
}

/** `/items`: the queue, read and changed under the same lock as the CLI's. */
export function itemRoutes(ctx: ServerContext): Hono {
  const app = new Hono();
  /** One item (a database reads it and what it depends on, not the whole queue). */
  const itemNamed = async (id: string): Promise<Item> => {
    const item = (await ctx.queue.dependencyClosure([id])).find((i) => i.id === id);
    if (item === undefined) throw new NotFoundError(`no item ${JSON.stringify(id)} in the queue`);
    return item;
  };

  app.get('/items', async (c) => {
    const { status } = query(c, ItemsQuery);
    const items = await ctx.queue.list();
    const byId = new Map(items.map((item) => [item.id, item]));
    const stuck = new Map(unrunnableItems(items).map(({ id, reason }) => [id, reason]));
    const now = Date.now();
    const shown = items
      .filter((item) => status === undefined || status.includes(item.status))
      .map((item) =>
        listed(
          item,
          statusIs(item.status, 'runnable')
            ? (stuck.get(item.id) ?? blockedReason(item, byId, now))
            : undefined,
        ),
      );
    return c.json(
      ctx.redactor.redactValue({
        items: shown,
        maxAttempts: ctx.workspace.config.defaults.maxAttempts,
      } satisfies Items),
    );
  });

  app.get('/items/:id', async (c) => {
    const id = idOf(c.req.param());
    const item: ItemDetail = await itemNamed(id);
    return c.json(ctx.redactor.redactValue(item));
  });

  app.post('/items', async (c) => {
    const input = await body(c, NewItemSchema);
    const item = newItem(input, Date.now());
    await addItem(ctx.workspace, ctx.queue, item, {
      replace: input.replace === true,
      names: fieldName,
      // Items over HTTP set no gates (they run commands): only the persona's are looked up.
      searchPath: process.env.PATH,
    });
    ctx.logAction(c, 'add', [item.id]);
    return c.json(ctx.redactor.redactValue(item satisfies ItemDetail), 201);
  });

  // What the item's branch holds against its base (git mode), for its page.
  app.get('/items/:id/diff', async (c) => {
    const id = idOf(c.req.param());
    const item = await itemNamed(id);
    if (item.branch === undefined)
      return c.json({ branch: null, diff: '', truncated: false } satisfies Diff);
    const { repo, branch, base, tip, landed } = await branchOfItem(ctx.workspace, item);
    const diff = await git(repo, ['diff', `${base}...${tip}`, '--']);
    return c.json({
      branch,
      base,
      landed,
      diff: ctx.redactor.redact(diff.slice(0, MAX_DIFF_CHARS)),
      truncated: diff.length > MAX_DIFF_CHARS,
    } satisfies Diff);
  });

  actionRoutes(app, ctx);
  return app;
}

/** What people do to one item: retry, cancel, stop, say, remove. */
function actionRoutes(app: Hono, ctx: ServerContext): void {
  app.post('/items/:id/retry', async (c) => {
    const { force } = query(c, ForceQuery);
    const ids = await ctx.queue.retry({ ids: [idOf(c.req.param())], force: force === '1' });
    ctx.logAction(c, 'retry', ids);
    return c.json({ items: ids, status: 'pending' } satisfies ItemsChanged);
  });

  app.post('/items/:id/cancel', async (c) => {
    const { force } = query(c, ForceQuery);
    const ids = await ctx.queue.cancel({ ids: [idOf(c.req.param())], force: force === '1' });
    ctx.logAction(c, 'cancel', ids);
    await dropWorktrees(ctx.workspace, ids, 'cancelled');
    return c.json({ items: ids, status: 'cancelled' } satisfies ItemsChanged);
  });

  app.post('/items/:id/stop', async (c) => {
    const { cancel, requeue } = query(c, StopQuery);
    const id = idOf(c.req.param());
    const result = await stopItem(ctx.workspace, ctx.queue, id, {
      then: cancel === '1' ? 'cancel' : requeue === '1' ? 'requeue' : 'park',
      by: addressOf(c),
      runnerLive: (await liveRunner(ctx.workspace.paths.runnerLock)) !== undefined,
    });
    ctx.logAction(c, 'stop', [id]);
    if (result.kind === 'not_in_time') throw new InputError(notStoppedInTime(id));
    return c.json({
      items: [id],
      status: result.kind === 'stopped' ? result.status : 'pending',
    } satisfies ItemsChanged);
  });

  app.post('/items/:id/messages', async (c) => {
    const id = idOf(c.req.param());
    const { text } = await body(c, MessageRequest);
    const said = await sayToItem(ctx.workspace, ctx.queue, id, {
      text,
      from: addressOf(c),
      runnerLive: (await liveRunner(ctx.workspace.paths.runnerLock)) !== undefined,
    });
    ctx.logAction(c, 'say', [id]);
    return c.json({ item: id, said: said.kind, text: saidText(id, said) } satisfies MessageSaid);
  });

  app.delete('/items/:id', async (c) => {
    const { force } = query(c, ForceQuery);
    const ids = await ctx.queue.remove([idOf(c.req.param())], force === '1');
    ctx.logAction(c, 'remove', ids);
    await dropWorktrees(ctx.workspace, ids, 'removed');
    return c.json({ items: ids, removed: true } satisfies ItemsRemoved);
  });
}
